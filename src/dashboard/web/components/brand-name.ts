// The name of the brand whose pages are shown (null elsewhere), for the document's title: a tab, a
// screen reader's window list and the browser's history tell two brands' Prompts pages apart.
import { createContext } from "preact";

export const BrandName = createContext<string | null>(null);
