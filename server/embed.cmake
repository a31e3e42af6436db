# Script mode: write OUT, a C file embedding FILES (a ;-list) as
#   const struct { const char *name; const unsigned char *data; size_t len; }
#   SYMBOL[] = {...}, terminated by a {NULL, NULL, 0} entry.
# Each array also gets a trailing NUL (not counted in len) so SQL and text
# assets can be used as C strings.
set(body "#include <stddef.h>\n")
set(table "")
set(i 0)
foreach(f ${FILES})
  get_filename_component(name ${f} NAME)
  file(READ ${f} hex HEX)
  string(LENGTH "${hex}" hexlen)
  math(EXPR len "${hexlen} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "static const unsigned char f${i}[] = {${bytes}0x00};\n")
  string(APPEND table "  {\"${name}\", f${i}, ${len}},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "const struct parity_embedded { const char *name; const unsigned char *data; size_t len; } ${SYMBOL}[] = {\n${table}  {NULL, NULL, 0}\n};\n")
file(WRITE ${OUT}.tmp "${body}")
file(RENAME ${OUT}.tmp ${OUT})
