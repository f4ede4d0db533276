/* SPDX-License-Identifier: GPL-2.0-only */
/* UTF-8 checks: Rust's String must hold valid UTF-8, so the decoder rejects
 * what bincode would reject and writers sanitise what they take from the
 * kernel (paths, command names) before they encode it. */
#ifndef KATRA_UTF8_H
#define KATRA_UTF8_H

#include <stdbool.h>
#include <stddef.h>

bool katra_utf8_valid(const char *s, size_t n);
/* Copies s into out (cap > 0), replacing each invalid byte with '?', and
 * NUL-terminates; returns the length written (at most cap - 1, never
 * splitting a sequence). */
size_t katra_utf8_sanitize(const char *s, size_t n, char *out, size_t cap);

#endif
