// The library tests/cprog/sample_hot.c loads with dlopen: its work is a
// C++ function, whose symbol sample mode must demangle
// (sample_ns::spin(unsigned long)).
volatile unsigned long dl_sink;

namespace sample_ns {
// A call at the end: a frame pointer for --call-graph fp (gcc omits it
// in leaf functions).
__attribute__((noinline)) static void
spun()
{
	dl_sink += 2;
}

__attribute__((noinline)) void
spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		dl_sink += i * i;
	spun();
}
}

extern "C" __attribute__((noinline)) void
dl_work(unsigned long n)
{
	sample_ns::spin(n);
	dl_sink += 1;
}
