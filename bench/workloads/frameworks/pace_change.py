#!/usr/bin/env python3
"""A loop whose pace changes mid-run, for the whole-run window checks (issue #43): 8 Linear
layers (512 wide, SGD) and a host sleep per step, 4 ms until step SLOW_FROM and 12 ms after.
`record` (auto) opens a second GPU window when the unrecorded steps' median departs.

    python3 pace_change.py STEPS SLOW_FROM
"""
import sys
import time

import torch

n, slow_from = int(sys.argv[1]), int(sys.argv[2])
m = torch.nn.Sequential(*[torch.nn.Linear(512, 512) for _ in range(8)]).cuda()
opt = torch.optim.SGD(m.parameters(), lr=1e-3)
x = torch.randn(256, 512, device="cuda")
for i in range(n):
    loss = m(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    torch.cuda.synchronize()
    time.sleep(0.004 if i < slow_from else 0.012)
print("done", n)
