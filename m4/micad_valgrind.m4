# MICAD_CHECK_VALGRIND_TOOL
# -------------------------
# The valgrind engine's tool (daemon/trace/vgtool, 'micad run --engine=valgrind')
# is built when valgrind's tool files are there: its headers, the static
# libraries of its core and VEX, and the preload library and suppressions
# the tool runs with (Debian's package 'valgrind' has them all).
# --with-valgrind=no skips it, =yes fails when something is missing, and the
# default (check) builds it when it can.  Defines HAVE_VGTOOL, MICAD_VALGRIND
# (the launcher's path) and MICAD_VGTOOL_MISSING (why it is not built, for
# micad's message); substitutes what daemon/trace/vgtool/local.mk needs.
AC_DEFUN([MICAD_CHECK_VALGRIND_TOOL], [
AC_ARG_WITH([valgrind],
  [AS_HELP_STRING([--with-valgrind@<:@=yes|no|check@:>@],
    [build the valgrind engine's tool (default: check; needs the Debian package 'valgrind')])],
  [], [with_valgrind=check])
micad_vg_missing=
VALGRIND_INCLUDEDIR=
VALGRIND_LIBDIR=
VALGRIND_LIBEXECDIR=
VALGRIND_LOAD_ADDRESS=
AS_IF([test "x$with_valgrind" = xno], [micad_vg_missing="micad was configured --with-valgrind=no"], [
  AC_PATH_PROG([VALGRIND_PROG], [valgrind])
  AS_IF([test -z "$VALGRIND_PROG"], [micad_vg_missing="valgrind is not installed"])
  AS_IF([test -z "$micad_vg_missing"], [
    AC_MSG_CHECKING([for valgrind's tool files])
    AS_IF([$PKG_CONFIG --exists valgrind], [
      VALGRIND_INCLUDEDIR=`$PKG_CONFIG --variable=includedir valgrind`
      VALGRIND_LIBDIR="`$PKG_CONFIG --variable=libdir valgrind`/valgrind"
      VALGRIND_LOAD_ADDRESS=`$PKG_CONFIG --variable=valt_load_address valgrind`
      for f in "$VALGRIND_INCLUDEDIR/pub_tool_tooliface.h" "$VALGRIND_LIBDIR/libcoregrind-amd64-linux.a" \
               "$VALGRIND_LIBDIR/libvex-amd64-linux.a" "$VALGRIND_LIBDIR/libgcc-sup-amd64-linux.a"; do
        test -r "$f" || micad_vg_missing="valgrind's $f is missing"
      done
      for d in "$VALGRIND_LIBDIR" /usr/libexec/valgrind /usr/lib/valgrind /usr/local/libexec/valgrind; do
        if test -z "$VALGRIND_LIBEXECDIR" && test -r "$d/vgpreload_core-amd64-linux.so" &&
           test -r "$d/default.supp"; then
          VALGRIND_LIBEXECDIR=$d
        fi
      done
      AS_IF([test -z "$micad_vg_missing" && test -z "$VALGRIND_LIBEXECDIR"],
        [micad_vg_missing="valgrind's vgpreload_core-amd64-linux.so was not found"])
      AS_IF([test -z "$VALGRIND_LOAD_ADDRESS"], [VALGRIND_LOAD_ADDRESS=0x58000000])
    ], [micad_vg_missing="valgrind's development files are not installed (no valgrind.pc)"])
    AS_IF([test -z "$micad_vg_missing"], [
      dnl A tool must build and link the way daemon/trace/vgtool/local.mk builds it.
      cat > conftest_vgtool.c <<'MICAD_EOF'
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
static void post_clo_init(void) { }
static IRSB *instrument(VgCallbackClosure *c, IRSB *sb, const VexGuestLayout *l,
                        const VexGuestExtents *e, const VexArchInfo *a, IRType g, IRType h)
{ (void)c; (void)l; (void)e; (void)a; (void)g; (void)h; return sb; }
static void fini(Int code) { (void)code; }
static void pre_clo_init(void)
{ VG_(details_name)("conftest"); VG_(basic_tool_funcs)(post_clo_init, instrument, fini); }
VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
MICAD_EOF
      AS_IF([$CC -O2 -fno-pie -fno-builtin -fno-stack-protector -DVGA_amd64=1 -DVGO_linux=1 \
               -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 -isystem "$VALGRIND_INCLUDEDIR" \
               -o conftest_vgtool conftest_vgtool.c -static -nodefaultlibs -nostartfiles -u _start \
               -Wl,-Ttext-segment=$VALGRIND_LOAD_ADDRESS -no-pie -L"$VALGRIND_LIBDIR" \
               -lcoregrind-amd64-linux -lvex-amd64-linux -lgcc-sup-amd64-linux -lgcc \
               >&AS_MESSAGE_LOG_FD 2>&1],
        [], [micad_vg_missing="a valgrind tool does not link here (see config.log)"])
      rm -f conftest_vgtool conftest_vgtool.c
    ])
    AS_IF([test -z "$micad_vg_missing"], [AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no: $micad_vg_missing])])
  ])
])
AS_IF([test -n "$micad_vg_missing" && test "x$with_valgrind" = xyes],
  [AC_MSG_ERROR([--with-valgrind: $micad_vg_missing; install the Debian package 'valgrind' (apt-get install valgrind)])])
AS_IF([test -z "$micad_vg_missing"],
  [AC_DEFINE([HAVE_VGTOOL], [1], [Define to 1 if the valgrind engine's tool is built.])
   AC_DEFINE_UNQUOTED([MICAD_VALGRIND], ["$VALGRIND_PROG"], [The valgrind launcher.])
   AC_DEFINE_UNQUOTED([MICAD_VGTOOL_MISSING], [""], [Why the valgrind engine is not built.])],
  [AS_IF([test "x$with_valgrind" != xno],
     [AC_MSG_NOTICE([the valgrind engine will not be built: $micad_vg_missing (install the Debian package 'valgrind' for it)])])
   AC_DEFINE_UNQUOTED([MICAD_VGTOOL_MISSING], ["$micad_vg_missing"], [Why the valgrind engine is not built.])])
AM_CONDITIONAL([HAVE_VGTOOL], [test -z "$micad_vg_missing"])
AC_SUBST([VALGRIND_INCLUDEDIR])
AC_SUBST([VALGRIND_LIBDIR])
AC_SUBST([VALGRIND_LIBEXECDIR])
AC_SUBST([VALGRIND_LOAD_ADDRESS])
])
