/* fake_torch.c — an empty stand-in for libtorch_cpu.so: the program-kind test links its
 * programs against it so the collector sees libtorch loaded without a real libtorch. */
int fake_torch_cpu_marker(void);
int fake_torch_cpu_marker(void)
{
    return 1;
}
