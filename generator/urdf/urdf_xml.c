/* urdf_xml.c — the URDF document through libxml2: parsing (no network, no DTD read, entity and
 * attribute-default declarations refused), locating elements and attributes in the text (found
 * once per element while parsing; a line index turns positions into lines and columns), reading
 * numbers. */
#include <errno.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "urdf/urdf_internal.h"

/* ------------------------------------------------------------------------------- locations */

/* u->lines[l]: the offset of the start of line l + 1, for every line of the text, built once
 * before parsing (a location is then a binary search, not a scan from the start). */
static int index_lines(mbg_urdf *u) {
  const char *end = u->text + u->len;
  size_t n = 1;
  for (const char *p = u->text; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) n++;
  u->lines = malloc(n * sizeof *u->lines);
  if (!u->lines) return u->oom = 1, 0;
  u->lines[0] = 0;
  n = 1;
  for (const char *p = u->text; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
    u->lines[n++] = (uint32_t)(p + 1 - u->text);
  u->nlines = n;
  return 1;
}

/* Start of line `line` (1-based) of the text, or NULL. */
static const char *line_start(const mbg_urdf *u, long line) {
  return line >= 1 && (size_t)line <= u->nlines ? u->text + u->lines[line - 1] : NULL;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

mbg_loc mbg_urdf_loc_at(const mbg_urdf *u, const char *p, size_t width) {
  size_t off = (size_t)(p - u->text), lo = 0, hi = u->nlines; /* lines[lo] <= off < lines[hi] */
  if (!u->lines || p < u->text || off > u->len) return (mbg_loc){0, 0, 0};
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (u->lines[mid] <= off)
      lo = mid;
    else
      hi = mid;
  }
  size_t col = off - u->lines[lo] + 1;
  mbg_loc loc = {lo + 1 < INT32_MAX ? (int)(lo + 1) : 0, col < INT32_MAX ? (int)col : 1, 0};
  if (width > 0 && col + width - 1 < INT32_MAX) loc.last_col = (int)(col + width - 1);
  return loc;
}

/* The '<' of the element's start tag when the parser did not record it (a document in an
 * encoding libxml2 converts without a way back): libxml2 numbers an element by the line where its
 * start tag ends, so the tag starts on that line or shortly before it. */
static const char *find_tag(const mbg_urdf *u, xmlNodePtr n) {
  enum { LOOK_BACK = 4096 }; /* bytes before the line: a bound, so locating stays linear */
  long line = xmlGetLineNo(n);
  const char *ls = line > 0 ? line_start(u, line) : NULL;
  if (!ls) return NULL;
  const char *nl = memchr(ls, '\n', (size_t)(u->text + u->len - ls));
  size_t end = (size_t)((nl ? nl : u->text + u->len) - u->text), start = (size_t)(ls - u->text);
  size_t stop = start > LOOK_BACK ? start - LOOK_BACK : 0;
  char tag[160];
  if (n->ns && n->ns->prefix)
    snprintf(tag, sizeof tag, "<%s:%s", (const char *)n->ns->prefix, (const char *)n->name);
  else
    snprintf(tag, sizeof tag, "<%s", (const char *)n->name);
  size_t tl = strlen(tag);
  for (size_t k = end; k-- > stop;) {
    const char *p = u->text + k;
    if (*p != '<' || u->len - k <= tl || memcmp(p, tag, tl) != 0) continue;
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
  if (!n) return (mbg_loc){0, 0, 0};
  uintptr_t at = (uintptr_t)n->_private; /* offset + 1, recorded while parsing */
  const char *tag = at > 0 && at <= u->len ? u->text + at - 1 : find_tag(u, n);
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
      if (vlen == 0) return mbg_urdf_loc_at(u, v - 1, 1);
      const char *nl = memchr(v, '\n', vlen);
      return mbg_urdf_loc_at(u, v, nl ? 1 : vlen);
    }
  }
  size_t width = 1 + strlen((const char *)n->name);
  if (n->ns && n->ns->prefix) width += 1 + strlen((const char *)n->ns->prefix);
  return mbg_urdf_loc_at(u, tag, width);
}

/* --------------------------------------------------------------------------------- parsing */

/* Trailing newline and spaces of libxml2's messages. */
static void trim(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ')) s[--n] = '\0';
}

/* The first error libxml2 raises (the last one, which xmlCtxtGetLastError keeps, is often a
 * consequence of the first: "premature end of data" after a mismatched tag).
 *
 * After a fatal error libxml2 reads on with every SAX hook silenced, ours included, so the hooks
 * below no longer refuse entity declarations. If that happens before the document has started
 * (a malformed XML declaration), libxml2 declares the entities itself ("for expat compatibility",
 * when it has no document yet) and then expands them: a "billion laughs" took 40 s. Giving it a
 * document there closes that path (the parse still fails; start_document frees it when libxml2
 * starts the document after all, after an encoding error). The parser is not stopped here:
 * xmlStopParser frees the input that the code raising the error may still be reading. */
typedef struct first_error {
  xmlParserCtxtPtr ctxt;
  xmlDocPtr given; /* the document keep_first gave libxml2, while it is the parser's */
  int seen, line, col;
  char msg[256];
} first_error;

static void keep_first(void *data, xmlErrorPtr e) {
  first_error *f = data;
  if (!e || e->level < XML_ERR_ERROR) return;
  if (e->level == XML_ERR_FATAL && !f->ctxt->myDoc)
    f->ctxt->myDoc = f->given = xmlNewDoc(BAD_CAST "1.0");
  if (f->seen) return;
  f->seen = 1;
  f->line = e->line;
  f->col = e->int2;
  snprintf(f->msg, sizeof f->msg, "%s", e->message ? e->message : "unreadable document");
  trim(f->msg);
}

/* The first entity reference left in the tree, in document order, or NULL. Only references to
 * entities the document does not declare are left (libxml2 lets those through when it names an
 * external DTD, which is not read), and libxml2 may hang one in the content next to the element
 * whose attribute held it; *from is set to the element it is searched for after in the text. */
static xmlNodePtr first_entity_ref(xmlDocPtr doc, xmlNodePtr *from) {
  xmlNodePtr root = xmlDocGetRootElement(doc), n = root;
  while (n) { /* without recursion; an entity reference is not entered */
    if (n->type == XML_ELEMENT_NODE) {
      *from = n;
      for (xmlAttrPtr a = n->properties; a; a = a->next)
        for (xmlNodePtr t = a->children; t; t = t->next)
          if (t->type == XML_ENTITY_REF_NODE) return t;
    } else if (n->type == XML_ENTITY_REF_NODE) {
      return n;
    }
    if (n->type == XML_ELEMENT_NODE && n->children) {
      n = n->children;
      continue;
    }
    while (n != root && !n->next) n = n->parent;
    n = n == root ? NULL : n->next;
  }
  return NULL;
}

/* A reference to an undeclared entity is an error: the text it stands for is not there. The
 * first one is reported (all have the same cause), at its place in the text. */
static int no_entity_refs(mbg_urdf *u, xmlDocPtr doc) {
  xmlNodePtr from = NULL, ref = first_entity_ref(doc, &from);
  if (!ref) return 1;
  char word[80];
  snprintf(word, sizeof word, "&%.63s;", (const char *)ref->name);
  mbg_loc loc = mbg_urdf_loc(u, from, NULL);
  uintptr_t at = from ? (uintptr_t)from->_private : 0;
  size_t wl = strlen(word);
  for (size_t k = at > 0 && at <= u->len ? at - 1 : u->len; k + wl <= u->len; k++)
    if (u->text[k] == '&' && memcmp(u->text + k, word, wl) == 0) {
      loc = mbg_urdf_loc_at(u, u->text + k, wl);
      break;
    }
  mbg_diag_error(u->d, loc,
                 "'%s' refers to an entity the document does not declare (mbdc reads no external "
                 "DTD and expands no entities): write the text out",
                 word);
  return 0;
}

/* ------------------------------------------------------------------------ the DTD, refused */

/* The parse as libxml2's SAX hooks see it (through ctxt->_private). */
typedef struct xml_hooks {
  mbg_urdf *u;
  startElementNsSAX2Func start_element; /* libxml2's own, which builds the tree */
  attributeDeclSAXFunc attribute_decl;
  startDocumentSAXFunc start_document;
  first_error *first;
  int refused; /* a declaration mbdc does not read: reported, parsing stopped */
} xml_hooks;

/* The byte of the text the parser is at, or NULL. In UTF-8 (or ASCII) libxml2's byte count is
 * the offset, at no cost; in an encoding it converts from, counting bytes converts the rest of
 * its buffer back (linear per call: a Latin-1 chain of 4000 links took 2.6 s), so the line and
 * the column (in characters) are used: exact for one-byte encodings such as Latin-1; in others
 * (UTF-16) the tag is not found there and is looked for by its line (find_tag). */
static const char *parser_at(const mbg_urdf *u, xmlParserCtxtPtr ctxt) {
  xmlParserInputPtr in = ctxt->input;
  if (!in) return NULL;
  if (!in->buf || !in->buf->encoder) {
    long off = xmlByteConsumed(ctxt);
    return off >= 0 && (size_t)off < u->len ? u->text + off : NULL;
  }
  if (in->line < 1 || (size_t)in->line > u->nlines || in->col < 1) return NULL;
  size_t off = u->lines[in->line - 1] + (size_t)in->col - 1;
  return off < u->len ? u->text + off : NULL;
}

/* The declaration `<!KIND` that ends where the parser is, for its location. */
static mbg_loc decl_loc(const mbg_urdf *u, xmlParserCtxtPtr ctxt, const char *kind) {
  const char *end = parser_at(u, ctxt);
  size_t kl = strlen(kind);
  for (size_t k = end ? (size_t)(end - u->text) + 1 : 0; k-- > 0;)
    if (u->len - k >= kl && memcmp(u->text + k, kind, kl) == 0)
      return mbg_urdf_loc_at(u, u->text + k, kl);
  int line = ctxt->input && ctxt->input->line > 0 ? ctxt->input->line : 0;
  return (mbg_loc){line, line > 0, 0};
}

static void refuse(xmlParserCtxtPtr ctxt) {
  ((xml_hooks *)ctxt->_private)->refused = 1;
  xmlStopParser(ctxt);
}

/* An entity declaration (general or parameter, internal or external): refused before anything
 * refers to it, so nothing is expanded (no "billion laughs"), nothing is fetched, and no text an
 * entity stands for is silently dropped. */
static void entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                        const xmlChar *system_id, xmlChar *content) {
  (void)public_id, (void)system_id, (void)content;
  xmlParserCtxtPtr ctxt = ctx;
  xml_hooks *h = ctxt->_private;
  if (h->refused) return;
  int param = type == XML_INTERNAL_PARAMETER_ENTITY || type == XML_EXTERNAL_PARAMETER_ENTITY;
  mbg_diag_error(h->u->d, decl_loc(h->u, ctxt, "<!ENTITY"),
                 "the document declares the entity '%s%.63s'; mbdc expands no entities declared "
                 "in a document (XML's five predefined ones and character references are read): "
                 "write the text out where it is used",
                 param ? "%" : "", (const char *)name);
  refuse(ctxt);
}

static void unparsed_entity_decl(void *ctx, const xmlChar *name, const xmlChar *public_id,
                                 const xmlChar *system_id, const xmlChar *notation) {
  (void)notation;
  entity_decl(ctx, name, XML_EXTERNAL_GENERAL_UNPARSED_ENTITY, public_id, system_id, NULL);
}

/* An <!ATTLIST> with a default value: XML gives every such element the attribute, which mbdc
 * would not see (it reads no DTD), so it is refused rather than read as absent. */
static void attribute_decl(void *ctx, const xmlChar *elem, const xmlChar *fullname, int type,
                           int def, const xmlChar *value, xmlEnumerationPtr tree) {
  xmlParserCtxtPtr ctxt = ctx;
  xml_hooks *h = ctxt->_private;
  if (h->attribute_decl)
    h->attribute_decl(ctx, elem, fullname, type, def, value, tree); /* takes `tree` */
  else
    xmlFreeEnumeration(tree);
  if (!value || h->refused) return;
  mbg_diag_error(h->u->d, decl_loc(h->u, ctxt, "<!ATTLIST"),
                 "the document gives attribute '%.63s' of <%.63s> the default value '%.40s'; "
                 "mbdc applies no defaults from a DTD: write the attribute on the element",
                 (const char *)fullname, (const char *)elem, (const char *)value);
  refuse(ctxt);
}

/* libxml2's own start of the document, which replaces the parser's document without freeing it:
 * the one keep_first gave it is freed first. */
static void start_document(void *ctx) {
  xmlParserCtxtPtr ctxt = ctx;
  xml_hooks *h = ctxt->_private;
  if (h->first->given && ctxt->myDoc == h->first->given) {
    xmlFreeDoc(ctxt->myDoc);
    ctxt->myDoc = NULL;
  }
  h->first->given = NULL;
  if (h->start_document) h->start_document(ctx);
}

/* Every element's start tag, found once as the parser passes it (the parser is at its closing
 * '>' or "/>", and no '<' can come between: attribute values may not contain one); kept in the
 * node's _private, which libxml2 leaves to its users, as the offset + 1. The look back is the
 * tag's length, except where the position is only estimated (parser_at: a multi-byte encoding),
 * where it is bounded and the tag's name checked. */
static void start_element(void *ctx, const xmlChar *name, const xmlChar *prefix,
                          const xmlChar *uri, int nns, const xmlChar **ns, int nattr, int ndef,
                          const xmlChar **attr) {
  xmlParserCtxtPtr ctxt = ctx;
  xml_hooks *h = ctxt->_private;
  if (h->start_element) h->start_element(ctx, name, prefix, uri, nns, ns, nattr, ndef, attr);
  xmlNodePtr n = ctxt->node;
  const char *p = parser_at(h->u, ctxt);
  if (!n || n->_private || !xmlStrEqual(n->name, name) || !p) return;
  int estimated = ctxt->input->buf && ctxt->input->buf->encoder;
  const char *stop = estimated && p - h->u->text > 4096 ? p - 4096 : h->u->text;
  while (p > stop && *p != '<') p--;
  size_t pl = prefix ? strlen((const char *)prefix) : 0, nl = strlen((const char *)name);
  size_t room = (size_t)(h->u->text + h->u->len - p);
  if (*p != '<' || room <= 1 + pl + (pl > 0) + nl) return;
  const char *q = p + 1;
  if (pl && (memcmp(q, prefix, pl) != 0 || q[pl] != ':')) return;
  q += pl ? pl + 1 : 0;
  if (memcmp(q, name, nl) != 0) return;
  n->_private = (void *)(uintptr_t)(p - h->u->text + 1);
}

/* 1 when the text starts as a UTF-16 or UCS-4 document does (a byte-order mark, or "<?" in two
 * or four bytes a character): there a zero byte is half of a character. */
static int wide_encoding(const mbg_urdf *u) {
  const unsigned char *t = (const unsigned char *)u->text;
  if (u->len < 4) return 0;
  return (t[0] == 0xff && t[1] == 0xfe) || (t[0] == 0xfe && t[1] == 0xff) || t[0] == 0 ||
         t[1] == 0;
}

/* A zero byte in a document of one-byte characters (UTF-8, Latin-1): libxml2 would stop reading
 * there and take what follows, whatever it is, for the end of the file. Reported at its place;
 * 1 when there is none. */
static int no_zero_byte(mbg_urdf *u) {
  const char *z = wide_encoding(u) ? NULL : memchr(u->text, 0, u->len);
  if (!z) return 1;
  mbg_loc loc = {1, 1, 0};
  for (const char *p = u->text; p < z; p++) {
    if (*p == '\n') loc.line++, loc.col = 1;
    else loc.col++;
  }
  mbg_diag_error(u->d, loc, "a zero byte (NUL), which an XML document holds nowhere: not in its "
                            "text, not after its root element");
  return 0;
}

xmlDocPtr mbg_urdf_parse(mbg_urdf *u, const char *path) {
  /* No network, no external DTD (XML_PARSE_NOENT, DTDLOAD and DTDATTR are not given), no
   * messages of libxml2's own: the first error is ours to report. Entity and attribute-default
   * declarations are refused by the hooks above. */
  const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                      XML_PARSE_BIG_LINES | XML_PARSE_NOCDATA;
  if (u->len > 0x7fffffff) {
    mbg_diag_error(u->d, (mbg_loc){0, 0, 0}, "the file is too large for an XML document");
    return NULL;
  }
  if (!index_lines(u) || !no_zero_byte(u)) return NULL;
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  if (!ctxt || !ctxt->sax) {
    xmlFreeParserCtxt(ctxt);
    u->oom = 1;
    return NULL;
  }
  first_error first = {ctxt, NULL, 0, 0, 0, "unreadable document"};
  xml_hooks h = {u, ctxt->sax->startElementNs, ctxt->sax->attributeDecl,
                 ctxt->sax->startDocument, &first, 0};
  ctxt->_private = &h;
  ctxt->sax->startDocument = start_document;
  ctxt->sax->startElementNs = start_element;
  ctxt->sax->attributeDecl = attribute_decl;
  ctxt->sax->entityDecl = entity_decl;
  ctxt->sax->unparsedEntityDecl = unparsed_entity_decl;
  xmlSetStructuredErrorFunc(&first, keep_first);
  xmlDocPtr doc = xmlCtxtReadMemory(ctxt, u->text, (int)u->len, path, NULL, options);
  xmlSetStructuredErrorFunc(NULL, NULL);
  if (ctxt->myDoc && ctxt->myDoc != doc) /* one given by keep_first after libxml2 let go of it */
    xmlFreeDoc(ctxt->myDoc);
  ctxt->myDoc = NULL;
  if (h.refused) {
    xmlFreeDoc(doc);
    doc = NULL;
  } else if (!doc) {
    mbg_loc loc = {first.line > 0 ? first.line : 0, 0, 0};
    loc.col = loc.line > 0 ? (first.col > 0 ? first.col : 1) : 0;
    mbg_diag_error(u->d, loc, "malformed XML: %s", first.msg);
  }
  xmlFreeParserCtxt(ctxt);
  if (doc && !no_entity_refs(u, doc)) {
    xmlFreeDoc(doc);
    doc = NULL;
  }
  return doc;
}

/* -------------------------------------------------------------------------------- elements */

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
