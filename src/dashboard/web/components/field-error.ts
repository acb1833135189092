// A refusal of a form's input, tied to the field it is about: the server names the field first in
// its sentence ("domain: … is not a domain name", "domains[0]: …", "name: …"), and a form shows that
// sentence under the field (aria-invalid, aria-describedby through Field) with the keyboard moved
// there, instead of one alert above the submit button that begins with the API's field path.
import { type RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, errorMessage } from "../api";

export interface FieldError {
  /** The form's field the sentence is about, or null (then it is the form's). */
  field: string | null;
  message: string;
}

/**
 * `failure` as a sentence, tied to one of `fields` when it names it (the input's field path first),
 * or when its code is one of `codes` (a name already taken: "tag_exists" → "name").
 */
export function fieldErrorOf(failure: unknown, fields: readonly string[], codes: Record<string, string> = {}): FieldError {
  const message = errorMessage(failure);
  if (!(failure instanceof ApiError)) return { field: null, message };
  // "name: …" from a feature, or a tool's input check about one field: "Invalid input for
  // update_prompt: text must be at least 3 characters." (Not one about an entry of a list field,
  // "aliases[1] must be …": said under the whole field, it would lose which entry.) A field of a
  // list's entry, "prompts[0].country: …", is the form's field of that name: a form that sends a
  // list gives each entry the same one (the bulk add's country for every line).
  const match =
    /^([a-z_]+)(?:\[\d+\])?: (.+)$/s.exec(message) ??
    /^[a-z_]+\[\d+\]\.([a-z_]+): (.+)$/s.exec(message) ??
    /^Invalid input for [a-z_]+: ([a-z_]+) ([^;[]+)$/s.exec(message) ??
    sameFieldOfEntries(message);
  if (!match || !fields.includes(match[1]!)) return { field: codes[failure.code] ?? null, message };
  const rest = match[2]!;
  // A sentence's first word takes a capital; a name it begins with keeps its own ("acme.com is the
  // brand's own domain" read "Acme.com is…").
  const plainWord = /^[a-z]+(?=[\s,:;]|$)/.test(rest);
  return { field: match[1]!, message: plainWord ? rest.charAt(0).toUpperCase() + rest.slice(1) : rest };
}

/**
 * A tool's input check about one field of a list's entries, every problem it names about that field
 * ("Invalid input for create_prompts: prompts[0].language must be …; prompts[1].language must be …"):
 * the field and the first problem's words. The bulk add gives every line the same language, so each
 * line was named (the review: said in an alert, with the API's paths).
 */
function sameFieldOfEntries(message: string): RegExpExecArray | null {
  const first = /^Invalid input for [a-z_]+: [a-z_]+\[\d+\]\.([a-z_]+) ([^;(]+?)\.?(?:; | \(and |$)/s.exec(message);
  if (!first) return null;
  const named = [...message.matchAll(/[a-z_]+\[\d+\]\.([a-z_]+)\b/g)].map((m) => m[1]);
  if (!named.every((field) => field === first[1])) return null;
  first[2] = `${first[2]}.`;
  return first;
}

/**
 * A form's failure: set it with the caught error, read a field's sentence with errorFor(field), and
 * the rest (a plan refusal, a sentence about no field) as `failure`. When a field's sentence comes,
 * the keyboard moves to that field (the control marked aria-invalid inside `form`).
 */
export function useFieldErrors(
  fields: readonly string[],
  codes: Record<string, string> = {},
): {
  form: RefObject<HTMLFormElement | null>;
  failure: unknown;
  setFailure(failure: unknown): void;
  errorFor(field: string): string | null;
} {
  const form = useRef<HTMLFormElement>(null);
  const [failure, setFailureState] = useState<unknown>(null);
  const tied = failure === null ? null : fieldErrorOf(failure, fields, codes);
  useEffect(() => {
    if (tied?.field) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [failure]);
  // A field's sentence goes once the field is changed: "already exists" stayed beside an email typed
  // anew (the dashboard walk), as if the new one were taken too.
  useEffect(() => {
    const element = form.current;
    if (!element || !tied?.field) return;
    // Only the control the sentence is about, which it describes: another may be marked invalid by a
    // check of the form's own (the article's empty body).
    const edited = (event: Event) => {
      const ids = (event.target as Element | null)?.getAttribute("aria-describedby")?.split(" ") ?? [];
      const about = ids.some((id) => {
        const said = document.getElementById(id);
        return said?.classList.contains("field-error") === true && said.textContent === tied.message;
      });
      if (about) setFailureState(null);
    };
    element.addEventListener("input", edited);
    element.addEventListener("change", edited);
    return () => {
      element.removeEventListener("input", edited);
      element.removeEventListener("change", edited);
    };
  }, [failure]);
  return {
    form,
    failure: tied?.field ? null : failure,
    setFailure: setFailureState,
    errorFor: (field) => (tied?.field === field ? tied.message : null),
  };
}

/**
 * `failure` with its sentence about `field` said without the field's API name: for a form of one
 * field (a dialog's password), where the sentence is shown as the form's ("password: that is not
 * your current password." → "That is not your current password.").
 */
export function withoutFieldName(failure: unknown, field: string): unknown {
  if (!(failure instanceof ApiError)) return failure;
  const tied = fieldErrorOf(failure, [field]);
  return tied.field === null ? failure : new ApiError(failure.status, tied.message, failure.code, failure.requiredPlan);
}
