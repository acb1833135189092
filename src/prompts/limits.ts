// A prompt's limits (and its tags'), as the tools take them: in a module of their own, without imports, so that the
// dashboard checks a bulk add by the same numbers (pages/prompts) without bundling the service.
export const PROMPT_TEXT_MIN = 3;
export const PROMPT_TEXT_MAX = 500;
export const PROMPTS_PER_CALL = 100;
export const TAG_NAME_MAX = 50;
export const TAGS_PER_PROMPT = 20;
