// libxml2 built with ICU clashes with Foundation's ICU on a clean build: drop ICU first.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/tree.h>
#include <libxml/HTMLparser.h>

// xmlFree is a global function pointer Swift 6 refuses to read.
static inline void quire_xml_free(void *p) { xmlFree(p); }
