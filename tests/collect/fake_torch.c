/* fake_torch.c — an empty stand-in for libtorch_cpu.so: the program-kind test links its
 * programs against it so the collector sees libtorch loaded without a real libtorch. One
 * function carries a C++ (mangled) name, as libtorch's C++ API does, for a program that
 * calls it the way a C++ program calls at::/torch:: functions. */
int fake_torch_cpu_marker(void);
int fake_torch_cpu_marker(void)
{
    return 1;
}

int fake_torch_cxx_api(void) __asm__("_ZN5torch12fake_cxx_apiEv");
int fake_torch_cxx_api(void)
{
    return 2;
}
