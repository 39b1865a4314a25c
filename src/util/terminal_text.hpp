// Text from a file, a registry or a record, made safe to print on a
// terminal. A shared cache, a registry's tag list or an image annotation is
// written by others: printed raw, an ESC starts a control sequence (move the
// cursor, retitle the window, rewrite what was printed above), a CR or LF
// forges a line of strata's output, and a bidi override (U+202E) shows text
// in another order than its bytes. Every text-mode line the CLI prints from
// such data goes through terminal_safe(); --json output does not (JSON
// escapes control characters itself).
#pragma once

#include <string>
#include <string_view>

namespace strata {

// `s` with every character a terminal would act on escaped visibly, and
// nothing else changed:
//   - C0 controls (U+0000–U+001F: ESC, CR, LF, TAB, …) and DEL → \x1b, \x0d, …
//   - C1 controls (U+0080–U+009F, as UTF-8), U+2028, U+2029, the bidi
//     embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and
//     marks (U+200E, U+200F, U+061C) → \u0085, \u2028, \u202e, …
//   - bytes that are not UTF-8 (a stray 0x9b, which an 8-bit terminal reads
//     as CSI, an overlong form, a surrogate, a truncated sequence) → U+FFFD,
//     one per maximal ill-formed subpart (Unicode's recommended practice).
// Backslashes are left as they are (paths and patterns keep their meaning),
// so "\x1b" in the output may also be those four characters in the input;
// that ambiguity is harmless, an escape sequence reaching the terminal is not.
// The result is valid UTF-8 with no control character in it.
std::string terminal_safe(std::string_view s);

// terminal_safe for text strata wrote as several lines (an error listing
// each rejected entry): each line made safe, the line feeds between them
// kept, so the listing reads as lines rather than as one line with \x0a.
std::string terminal_safe_lines(std::string_view s);

}  // namespace strata
