/* Reads tests/data/known_answers.txt, the one copy of the known answers
 * (SPEC.md sections 3, 6 and 7); the file's header describes its format.
 *
 * Plain C11 that also compiles as C++17: the C API test uses it directly,
 * the C++ tests through test_util.h (rt_test::Known()). The Python tests read
 * the same file with tests/known_answers.py. The build passes the file's path
 * as RANDTENSOR_TEST_KNOWN_ANSWERS, so tests run from any build directory.
 *
 * A file that cannot be read or does not parse is an error, never an empty
 * set of answers: rt_ka_load says which line and why. */
#ifndef RANDTENSOR_TESTS_KNOWN_ANSWERS_H_
#define RANDTENSOR_TESTS_KNOWN_ANSWERS_H_

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum {
  RT_KA_MAX_RECORDS = 32,
  RT_KA_MAX_VALUES = 64, /* values listed in one record */
  RT_KA_MAX_RANK = 8,
  RT_KA_MAX_TOKEN = 64
};

typedef enum rt_ka_kind { RT_KA_BLOCK, RT_KA_FILL, RT_KA_ELEMENT } rt_ka_kind;

typedef struct rt_ka_record {
  rt_ka_kind kind;
  char name[RT_KA_MAX_TOKEN];
  /* block: counter words 0-3 and key words 4-5; fill and element: the state. */
  uint32_t in[6];
  /* fill: the output sizes and their product N. */
  int rank;
  int64_t sizes[RT_KA_MAX_RANK];
  uint64_t count;
  /* element: the stream index. */
  uint64_t index;
  /* block: the 4 block words; fill: the N values or none; element: 1 value. */
  int value_count;
  uint32_t values[RT_KA_MAX_VALUES];
  /* fill: the output state. */
  uint32_t out[6];
} rt_ka_record;

typedef struct rt_known_answers {
  int count;
  rt_ka_record records[RT_KA_MAX_RECORDS];
  char error[512]; /* why rt_ka_load failed */
} rt_known_answers;

/* ------------------------------------------------------------ tokens */

typedef struct rt_ka_reader {
  FILE* file;
  int line;       /* of the last token read */
  int next_line;  /* of the next character */
  char token[RT_KA_MAX_TOKEN];
} rt_ka_reader;

/* Reads the next token into r->token; returns 0 at the end of the file and
 * -1 for a token too long. '#' starts a comment to the end of the line. */
static inline int rt_ka_next(rt_ka_reader* r) {
  int c = fgetc(r->file);
  size_t n = 0;
  for (;;) {
    if (c == '#') {
      while (c != '\n' && c != EOF) c = fgetc(r->file);
    }
    if (c == EOF) return 0;
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') break;
    if (c == '\n') ++r->next_line;
    c = fgetc(r->file);
  }
  r->line = r->next_line;
  while (c != EOF && c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '#') {
    if (n + 1 >= sizeof(r->token)) return -1;
    r->token[n++] = (char)c;
    c = fgetc(r->file);
  }
  r->token[n] = '\0';
  if (c != EOF) ungetc(c, r->file);
  return 1;
}

/* 1 to 8 hexadecimal digits. */
static inline int rt_ka_hex(const char* s, uint32_t* out) {
  uint32_t v = 0;
  size_t n = strlen(s), i;
  if (n < 1 || n > 8) return 0;
  for (i = 0; i < n; ++i) {
    const char c = s[i];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return 0;
    v = v * 16u + (uint32_t)d;
  }
  *out = v;
  return 1;
}

/* Decimal digits, at most 2^63 - 1. */
static inline int rt_ka_decimal(const char* s, uint64_t* out) {
  uint64_t v = 0;
  size_t i, n = strlen(s);
  if (n < 1) return 0;
  for (i = 0; i < n; ++i) {
    if (s[i] < '0' || s[i] > '9') return 0;
    if (v > (UINT64_C(0x7fffffffffffffff) - (uint64_t)(s[i] - '0')) / 10u) return 0;
    v = v * 10u + (uint64_t)(s[i] - '0');
  }
  *out = v;
  return 1;
}

/* ------------------------------------------------------------ records */

static inline int rt_ka_fail(rt_known_answers* ka, const char* path, const rt_ka_reader* r,
                      const char* what) {
  snprintf(ka->error, sizeof(ka->error), "%s:%d: %s (at \"%s\")", path, r->line, what, r->token);
  return 0;
}

/* Reads the next token, which must exist; returns 0 at a premature end or
 * for a token too long. */
static inline int rt_ka_expect_token(rt_ka_reader* r) { return rt_ka_next(r) == 1; }

static inline int rt_ka_words(rt_ka_reader* r, uint32_t* out, int n) {
  int i;
  for (i = 0; i < n; ++i) {
    if (!rt_ka_expect_token(r) || !rt_ka_hex(r->token, &out[i])) return 0;
  }
  return 1;
}

static inline int rt_ka_literal(rt_ka_reader* r, const char* literal) {
  return rt_ka_expect_token(r) && strcmp(r->token, literal) == 0;
}

/* "10" or "3x3x20x7219": 1 to 8 decimal sizes; sets rank, sizes, count. */
static inline int rt_ka_sizes(const char* s, rt_ka_record* rec) {
  char part[RT_KA_MAX_TOKEN];
  uint64_t size;
  rec->rank = 0;
  rec->count = 1;
  for (;;) {
    const char* x = strchr(s, 'x');
    const size_t n = x != NULL ? (size_t)(x - s) : strlen(s);
    if (n >= sizeof(part) || rec->rank == RT_KA_MAX_RANK) return 0;
    memcpy(part, s, n);
    part[n] = '\0';
    if (!rt_ka_decimal(part, &size)) return 0;
    if (size != 0 && rec->count > UINT64_C(0x7fffffffffffffff) / size) return 0;
    rec->sizes[rec->rank++] = (int64_t)size;
    rec->count *= size;
    if (x == NULL) return 1;
    s = x + 1;
  }
}

/* Loads `path` into `ka`. Returns 1, or 0 with ka->error saying why. */
static inline int rt_ka_load(const char* path, rt_known_answers* ka) {
  rt_ka_reader r;
  int got, i;
  memset(ka, 0, sizeof(*ka));
  memset(&r, 0, sizeof(r));
  r.next_line = 1;
  r.file = fopen(path, "r");
  if (r.file == NULL) {
    snprintf(ka->error, sizeof(ka->error), "%s: cannot open the known-answer file", path);
    return 0;
  }
  while ((got = rt_ka_next(&r)) != 0) {
    rt_ka_record* rec = &ka->records[ka->count];
    int ok = 0;
    if (got < 0) break;
    if (ka->count == RT_KA_MAX_RECORDS) {
      rt_ka_fail(ka, path, &r, "too many records");
      fclose(r.file);
      return 0;
    }
    if (strcmp(r.token, "block") == 0) {
      rec->kind = RT_KA_BLOCK;
    } else if (strcmp(r.token, "fill") == 0) {
      rec->kind = RT_KA_FILL;
    } else if (strcmp(r.token, "element") == 0) {
      rec->kind = RT_KA_ELEMENT;
    } else {
      rt_ka_fail(ka, path, &r, "expected a record kind: block, fill or element");
      fclose(r.file);
      return 0;
    }
    if (!rt_ka_expect_token(&r)) {
      rt_ka_fail(ka, path, &r, "a record without a name (or a token too long)");
      fclose(r.file);
      return 0;
    }
    memcpy(rec->name, r.token, sizeof(rec->name));
    for (i = 0; i < ka->count; ++i) {
      if (ka->records[i].kind == rec->kind && strcmp(ka->records[i].name, rec->name) == 0) {
        rt_ka_fail(ka, path, &r, "a second record of this kind and name");
        fclose(r.file);
        return 0;
      }
    }
    switch (rec->kind) {
      case RT_KA_BLOCK:
        rec->value_count = 4;
        ok = rt_ka_words(&r, rec->in, 6) && rt_ka_literal(&r, "->") &&
             rt_ka_words(&r, rec->values, 4);
        break;
      case RT_KA_ELEMENT:
        rec->value_count = 1;
        ok = rt_ka_words(&r, rec->in, 6) && rt_ka_expect_token(&r) &&
             rt_ka_decimal(r.token, &rec->index) && rt_ka_literal(&r, "->") &&
             rt_ka_words(&r, rec->values, 1);
        break;
      case RT_KA_FILL:
        ok = rt_ka_words(&r, rec->in, 6) && rt_ka_expect_token(&r) &&
             rt_ka_sizes(r.token, rec) && rt_ka_literal(&r, "->");
        while (ok) {
          ok = rt_ka_expect_token(&r);
          if (!ok || strcmp(r.token, ";") == 0) break;
          ok = rec->value_count < RT_KA_MAX_VALUES &&
               rt_ka_hex(r.token, &rec->values[rec->value_count++]);
        }
        ok = ok && rt_ka_words(&r, rec->out, 6);
        if (ok && rec->value_count != 0 && (uint64_t)rec->value_count != rec->count) {
          rt_ka_fail(ka, path, &r, "a fill lists neither all its values nor none");
          fclose(r.file);
          return 0;
        }
        break;
    }
    if (!ok) {
      rt_ka_fail(ka, path, &r, "malformed record (see the format at the top of the file)");
      fclose(r.file);
      return 0;
    }
    ++ka->count;
  }
  fclose(r.file);
  if (got < 0) return rt_ka_fail(ka, path, &r, "a token too long");
  if (ka->count == 0) {
    snprintf(ka->error, sizeof(ka->error), "%s: no records", path);
    return 0;
  }
  return 1;
}

/* The record of `kind` named `name`, or NULL. */
static inline const rt_ka_record* rt_ka_find(const rt_known_answers* ka, rt_ka_kind kind,
                                      const char* name) {
  int i;
  for (i = 0; i < ka->count; ++i) {
    if (ka->records[i].kind == kind && strcmp(ka->records[i].name, name) == 0) {
      return &ka->records[i];
    }
  }
  return NULL;
}

#endif /* RANDTENSOR_TESTS_KNOWN_ANSWERS_H_ */
