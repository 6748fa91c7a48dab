#!/bin/sh
# The bash completions of contrib/completion/ complete what the programs
# take: commands and options from the built programs' --help, the values
# of options that take one of a few words (--engine=, -mcpu=, --format),
# files after -c and the program to run after '--'.
. "$top_srcdir/tests/tracer_lib.sh"

if ! command -v bash >/dev/null; then
	skip "bash completion" "bash is not installed"
	done_testing
fi

# complete PROG WORD...: the completions of the last WORD (the line typed
# so far, as bash splits it: '--opt=' is '--opt' '='), one line, sorted.
complete() {
	prog=$1
	shift
	bash -c '
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		"_$(basename "$1")"
		printf "%s\n" "${COMPREPLY[@]}"
	' complete "$top_srcdir/contrib/completion/$prog" "$top_builddir/$prog" "$@" |
		sort | tr '\n' ' ' | sed 's/ $//'
}

is "$(complete micad "")" "--help --version attach replay run serve" "micad: its commands"
is "$(complete micad run --fol)" "--follow-forks" "micad run: an option from its --help"
is "$(complete micad serve --max)" "--max-sessions-per-user" "micad serve: its own options"
is "$(complete micad run --eng)" "--engine=" "micad run: --engine= (a value follows)"
is "$(complete micad run --engine =)" "ptrace valgrind" "micad run --engine=: the engines"
is "$(complete micad run --step = l)" "leapfrog" "micad run --step=l: leapfrog"
mkdir "$TMP/cfg.d"
: >"$TMP/cfg.d/my.conf"
is "$(complete micad run -c "$TMP/cfg.d/m")" "$TMP/cfg.d/my.conf" "micad run -c: a file"
is "$(complete micad run -- sh)" "$(bash -c 'compgen -c -- sh' | sort -u | tr '\n' ' ' |
	sed 's/ $//')" "micad run --: the program to run, as a command"
is "$(complete micad attach $$)" "$$" "micad attach: a process id"

is "$(complete micactl "")" \
	"--help --version attach export list mca query run shutdown status stop ui" \
	"micactl: its commands"
is "$(complete micactl export --fo)" "--format" "micactl export: --format"
is "$(complete micactl export 1 --format "")" "csv folded json mica pprof" \
	"micactl export --format: the export formats"
is "$(complete micactl query -f "")" "csv json table" "micactl query -f: the query formats"
is "$(complete micactl export --mica)" "" "micactl export: not micad's --mica-out, which its help names"
is "$(complete micactl attach -b --no)" "--no-bursts --no-pin --no-spawn" \
	"micactl attach: options after an option"
is "$(complete micactl mca -mc)" "-mcpu=" "micactl mca: llvm-mca's -mcpu="
is "$(complete micactl mca -mcpu = sky)" "skylake skylake-avx512" "micactl mca -mcpu=: the CPUs"
is "$(complete micactl mca --model =)" "corrected llvm" "micactl mca --model=: the models"
is "$(complete micactl mca -op)" "" "micactl mca: not the '-opt=VALUE' of its help"
done_testing
