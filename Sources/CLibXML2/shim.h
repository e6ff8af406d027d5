// The libxml2 C API, as model files, the XML store and feed import use it
// (Debian: libxml2-dev; headers under /usr/include/libxml2 through pkg-config).
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, whose headers clash with the copy of ICU inside Foundation.
// We never touch the ICU parts of xmlCharEncodingHandler (only pointers to it), so hide them.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
