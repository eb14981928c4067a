export interface ErrorsRow {
  id: string;
  /** The `## ` heading the row's table is under. */
  section: string;
  input: string;
  error: string;
  /** The message column as written. */
  text: string;
  /** Each message the row quotes (its `…` spans), in order, abbreviations expanded. */
  messages: string[];
  test: string;
  /** 1-based line in errors.md. */
  line: number;
}
export const ERRORS_MD: URL;
export function errorsText(): string;
export function abbreviations(text?: string): Map<string, string>;
export function errorsRows(text?: string): ErrorsRow[];
export function errorsRow(id: string): ErrorsRow;
export function namesABrowser(row: ErrorsRow): boolean;
export function quotes(quoted: string, message: string): boolean;
export function rule(message: string): string;
