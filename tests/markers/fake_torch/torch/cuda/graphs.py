"""FAKE torch.cuda.graphs: a CUDAGraph whose capture and replay do nothing but count."""
captures = 0
replays = 0


class CUDAGraph:
    def capture_begin(self, pool=None, capture_error_mode="global"):
        global captures
        captures += 1

    def capture_end(self):
        pass

    def replay(self):
        global replays
        replays += 1
        return "replayed"
