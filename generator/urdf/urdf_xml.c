/* urdf_xml.c — the URDF document through libxml2: parsing, locating elements and attributes in
 * the text (libxml2 gives the line of an element, we find the column), reading numbers. */
#include <errno.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "urdf/urdf_internal.h"

/* Trailing newline and spaces of libxml2's messages. */
static void trim(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ')) s[--n] = '\0';
}

/* The first error libxml2 raises (the last one, which xmlCtxtGetLastError keeps, is often a
 * consequence of the first: "premature end of data" after a mismatched tag). */
typedef struct first_error {
  int seen, line, col;
  char msg[256];
} first_error;

static void keep_first(void *data, xmlErrorPtr e) {
  first_error *f = data;
  if (f->seen || !e || e->level < XML_ERR_ERROR) return;
  f->seen = 1;
  f->line = e->line;
  f->col = e->int2;
  snprintf(f->msg, sizeof f->msg, "%s", e->message ? e->message : "unreadable document");
  trim(f->msg);
}

xmlDocPtr mbg_urdf_parse(mbg_urdf *u, const char *path) {
  /* No network, no external entities or DTDs (XML_PARSE_NOENT and DTDLOAD are not given), no
   * messages of libxml2's own: the first error is ours to report. */
  const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                      XML_PARSE_BIG_LINES | XML_PARSE_NOCDATA;
  if (u->len > 0x7fffffff) {
    mbg_diag_error(u->d, (mbg_loc){0, 0, 0}, "the file is too large for an XML document");
    return NULL;
  }
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  if (!ctxt) {
    u->oom = 1;
    return NULL;
  }
  first_error first = {0, 0, 0, "unreadable document"};
  xmlSetStructuredErrorFunc(&first, keep_first);
  xmlDocPtr doc = xmlCtxtReadMemory(ctxt, u->text, (int)u->len, path, NULL, options);
  xmlSetStructuredErrorFunc(NULL, NULL);
  if (!doc) {
    mbg_loc loc = {first.line > 0 ? first.line : 0, 0, 0};
    loc.col = loc.line > 0 ? (first.col > 0 ? first.col : 1) : 0;
    mbg_diag_error(u->d, loc, "malformed XML: %s", first.msg);
  }
  xmlFreeParserCtxt(ctxt);
  return doc;
}

int mbg_urdf_is(xmlNodePtr n, const char *name) {
  return n && n->type == XML_ELEMENT_NODE && !n->ns && strcmp((const char *)n->name, name) == 0;
}

xmlNodePtr mbg_urdf_child(xmlNodePtr n, const char *name) {
  for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
    if (mbg_urdf_is(c, name)) return c;
  return NULL;
}

const char *mbg_urdf_attr(xmlNodePtr n, const char *name) {
  for (xmlAttrPtr a = n->properties; a; a = a->next) {
    if (a->ns || strcmp((const char *)a->name, name) != 0) continue;
    /* Predefined and character references are already replaced: the value is one text node. */
    xmlNodePtr t = a->children;
    return t && t->type == XML_TEXT_NODE && t->content ? (const char *)t->content : "";
  }
  return NULL;
}

const char *mbg_urdf_need_attr(mbg_urdf *u, xmlNodePtr n, const char *name) {
  const char *v = mbg_urdf_attr(n, name);
  if (!v)
    mbg_diag_error(u->d, mbg_urdf_loc(u, n, NULL), "<%s> needs the attribute '%s'",
                   (const char *)n->name, name);
  return v;
}

/* ------------------------------------------------------------------------------- locations */

/* Start of line `line` (1-based) of the text, or NULL. */
static const char *line_start(const mbg_urdf *u, long line) {
  const char *p = u->text, *end = u->text + u->len;
  for (long l = 1; l < line; l++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return NULL;
    p = nl + 1;
  }
  return p;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Line and column of position p. */
static mbg_loc loc_at(const mbg_urdf *u, const char *p, size_t width) {
  mbg_loc loc = {1, 1, 0};
  const char *ls = u->text;
  for (const char *q = u->text; q < p; q++)
    if (*q == '\n') loc.line++, ls = q + 1;
  loc.col = (int)(p - ls) + 1;
  loc.last_col = width > 0 ? loc.col + (int)width - 1 : 0;
  return loc;
}

/* The '<' of the element's start tag: libxml2 numbers an element by the line where its start tag
 * ends, so the tag starts on that line or before it. */
static const char *find_tag(const mbg_urdf *u, xmlNodePtr n) {
  long line = xmlGetLineNo(n);
  const char *ls = line > 0 ? line_start(u, line) : NULL;
  if (!ls) return NULL;
  const char *end = memchr(ls, '\n', (size_t)(u->text + u->len - ls));
  end = end ? end : u->text + u->len;
  char tag[160];
  if (n->ns && n->ns->prefix)
    snprintf(tag, sizeof tag, "<%s:%s", (const char *)n->ns->prefix, (const char *)n->name);
  else
    snprintf(tag, sizeof tag, "<%s", (const char *)n->name);
  size_t tl = strlen(tag);
  for (const char *p = end - 1; p >= u->text; p--) {
    if (*p != '<' || (size_t)(u->text + u->len - p) <= tl || memcmp(p, tag, tl) != 0) continue;
    char after = p[tl];
    if (is_space(after) || after == '/' || after == '>') return p;
  }
  return NULL;
}

/* The value of attribute `attr` within the start tag at `tag`, and its length. */
static const char *find_attr(const mbg_urdf *u, const char *tag, const char *attr, size_t *vlen) {
  size_t al = strlen(attr);
  const char *end = u->text + u->len;
  for (const char *p = tag + 1; p < end && *p != '>'; p++) {
    if (*p == '"' || *p == '\'') { /* skip a quoted value */
      const char *q = memchr(p + 1, *p, (size_t)(end - p - 1));
      if (!q) return NULL;
      p = q;
      continue;
    }
    if (!is_space(p[-1]) || (size_t)(end - p) <= al || memcmp(p, attr, al) != 0) continue;
    const char *q = p + al;
    while (q < end && is_space(*q)) q++;
    if (q >= end || *q != '=') continue;
    for (q++; q < end && is_space(*q); q++) {
    }
    if (q >= end || (*q != '"' && *q != '\'')) return NULL;
    const char *close = memchr(q + 1, *q, (size_t)(end - q - 1));
    if (!close) return NULL;
    *vlen = (size_t)(close - q - 1);
    return q + 1;
  }
  return NULL;
}

mbg_loc mbg_urdf_loc(const mbg_urdf *u, xmlNodePtr n, const char *attr) {
  mbg_loc none = {0, 0, 0};
  const char *tag = find_tag(u, n);
  if (!tag) {
    long line = xmlGetLineNo(n);
    mbg_loc l = {line > 0 && line < 0x7fffffff ? (int)line : 0, line > 0 ? 1 : 0, 0};
    return l;
  }
  if (attr) {
    size_t vlen = 0;
    const char *v = find_attr(u, tag, attr, &vlen);
    if (v) {
      /* Underline the value when it is on one line; an empty one: the quote before it. */
      if (vlen == 0) return loc_at(u, v - 1, 1);
      const char *nl = memchr(v, '\n', vlen);
      return loc_at(u, v, nl ? 1 : vlen);
    }
  }
  size_t width = 1 + strlen((const char *)n->name);
  if (n->ns && n->ns->prefix) width += 1 + strlen((const char *)n->ns->prefix);
  return tag ? loc_at(u, tag, width) : none;
}

/* ---------------------------------------------------------------------------------- numbers */

int mbg_urdf_numbers(mbg_urdf *u, xmlNodePtr n, const char *attr, int count, double *out) {
  const char *s = mbg_urdf_attr(n, attr);
  if (!s) return -1;
  double v[16];
  int k = 0, bad = 0;
  const char *p = s;
  for (;;) {
    while (is_space(*p)) p++;
    if (!*p) break;
    char *end;
    errno = 0;
    double x = strtod(p, &end);
    if (end == p) { /* not a number: report the word */
      bad = 1;
      break;
    }
    if (k < 16) v[k] = x;
    if (!isfinite(x) || (errno == ERANGE && isinf(x))) bad = 2;
    k++;
    p = end;
    if (*p && !is_space(*p)) { /* "1.5x" */
      bad = 1;
      break;
    }
  }
  mbg_loc loc = mbg_urdf_loc(u, n, attr);
  const char *el = (const char *)n->name;
  if (bad == 1) {
    mbg_diag_error(u->d, loc, "'%s' of <%s> must be %d number%s, not '%.40s'", attr, el, count,
                   count == 1 ? "" : "s", s);
    return 0;
  }
  if (bad == 2) {
    mbg_diag_error(u->d, loc, "'%s' of <%s> must be finite, not '%.40s'", attr, el, s);
    return 0;
  }
  if (k != count) {
    mbg_diag_error(u->d, loc, "'%s' of <%s> expects %d number%s, found %d", attr, el, count,
                   count == 1 ? "" : "s", k);
    return 0;
  }
  memcpy(out, v, (size_t)count * sizeof *out);
  return 1;
}
