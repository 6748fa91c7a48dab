/* The shared library of tests/cprog/sample_hot.c. */
void lib_work(unsigned long n);
