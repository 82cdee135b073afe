from .optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, params, lr=0.1):
        super().__init__(params)
        self.lr = lr
        self.steps = 0

    def step(self, closure=None):
        self.steps += 1
