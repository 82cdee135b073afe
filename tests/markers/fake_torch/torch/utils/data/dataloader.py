"""Fake torch.utils.data.dataloader: DataLoader.__iter__ makes an iterator whose class derives
from _BaseDataLoaderIter, which alone defines __next__ (subclasses define _next_data)."""


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._index = 0

    def __iter__(self):
        return self

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        return self._next_data()


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def _next_data(self):
        if self._index >= len(self._dataset):
            raise StopIteration
        item = self._dataset[self._index]
        self._index += 1
        return item


class DataLoader:
    def __init__(self, dataset, batch_size=1):
        self.dataset = dataset
        self.batch_size = batch_size

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        return len(self.dataset)
