#include <pango/pangocairo.h>
#include <cairo-pdf.h>
#include <fontconfig/fontconfig.h>
