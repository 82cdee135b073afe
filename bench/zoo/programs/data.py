"""Synthetic data sets that do the CPU work real ones do, made in-process (no downloads):

- JpegImages: a pool of JPEG files in memory; each item decodes one (torchvision.io), takes a
  random resized crop, flips it and normalises it to float32 CHW, as ImageFolder with
  RandomResizedCrop + RandomHorizontalFlip + ToTensor + Normalize does per sample;
- ImageTensors: float32 images already decoded (a cached data set): a crop and a flip;
- Tokenizer / texts: a greedy longest-match subword tokeniser in pure Python over a generated
  vocabulary (the per-sample cost of a slow tokenizer) and sentences of generated words.

Everything is deterministic per index, so two runs (and both twins) see the same samples.
"""
import torch
import torch.nn.functional as F

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)


def smooth_images(n, src, seed=0):
    """n uint8 CHW images with structure (low-resolution noise upsampled): JPEG sizes and
    decode times like photos', not like white noise's."""
    gen = torch.Generator().manual_seed(seed)
    low = torch.rand(n, 3, max(src // 8, 2), max(src // 8, 2), generator=gen) * 255
    up = F.interpolate(low, size=(src, src), mode="bilinear", align_corners=False)
    return up.clamp(0, 255).to(torch.uint8)


def random_resized_crop(img, out, gen):
    """A crop of 35-100 % of the side at a random place, resized to out x out, maybe flipped."""
    side = img.shape[-1]
    c = int(side * (0.35 + 0.65 * torch.rand((), generator=gen).item()))
    top = int(torch.randint(0, side - c + 1, (), generator=gen))
    left = int(torch.randint(0, side - c + 1, (), generator=gen))
    crop = img[:, top:top + c, left:left + c].unsqueeze(0).float()
    crop = F.interpolate(crop, size=(out, out), mode="bilinear", align_corners=False,
                         antialias=True)[0]
    if torch.rand((), generator=gen).item() < 0.5:
        crop = crop.flip(-1)
    return crop


class JpegImages(torch.utils.data.Dataset):
    def __init__(self, length, src, img, classes, pool=64, normalise=True):
        from torchvision.io import encode_jpeg
        self.jpegs = [encode_jpeg(im, quality=90) for im in smooth_images(pool, src)]
        self.labels = torch.randint(0, classes, (pool,), generator=torch.Generator().manual_seed(1))
        self.length, self.img, self.normalise = length, img, normalise

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        from torchvision.io import decode_jpeg
        k = i % len(self.jpegs)
        img = decode_jpeg(self.jpegs[k])
        x = random_resized_crop(img, self.img, torch.Generator().manual_seed(i))
        if self.normalise:
            x = (x / 255 - MEAN) / STD
        else:
            x = x.round().clamp(0, 255).to(torch.uint8)
        return x, int(self.labels[k])


class ImageTensors(torch.utils.data.Dataset):
    """Decoded float32 images in memory (a cached data set): random crop and flip per item."""

    def __init__(self, length, src, img, classes, pool=32):
        self.pool = (smooth_images(pool, src).float() / 255 - MEAN) / STD
        self.labels = torch.randint(0, classes, (pool,), generator=torch.Generator().manual_seed(1))
        self.length, self.img = length, img

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        gen = torch.Generator().manual_seed(i)
        k, side = i % len(self.pool), self.pool.shape[-1]
        top = int(torch.randint(0, side - self.img + 1, (), generator=gen))
        left = int(torch.randint(0, side - self.img + 1, (), generator=gen))
        x = self.pool[k, :, top:top + self.img, left:left + self.img]
        if torch.rand((), generator=gen).item() < 0.5:
            x = x.flip(-1)
        return x.contiguous(), int(self.labels[k])


SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "pe", "da", "gu", "shi", "an",
             "er", "ol", "um", "tra", "ble", "ing", "ion", "st", "ch", "or", "en"]


def words(n, seed=0):
    """n pseudo-words of 1-5 syllables."""
    gen = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        k = int(torch.randint(1, 6, (), generator=gen))
        idx = torch.randint(0, len(SYLLABLES), (k,), generator=gen).tolist()
        out.append("".join(SYLLABLES[j] for j in idx))
    return out


def texts(n, words_per_text, seed=0, lexicon=4000):
    """n sentences drawn from a lexicon of pseudo-words (half of them not in the vocabulary)."""
    lex = words(lexicon, seed + 7)
    gen = torch.Generator().manual_seed(seed)
    picks = torch.randint(0, lexicon, (n, words_per_text), generator=gen).tolist()
    return [" ".join(lex[j] for j in row) for row in picks]


class Tokenizer:
    """Greedy longest-match subword tokeniser over a vocabulary of syllables, syllable pairs and
    half the lexicon's whole words; ids < vocab_size; special ids 0 (pad), 1 (bos), 2 (eos)."""

    def __init__(self, vocab_size, seed=0):
        pieces = list(SYLLABLES) + [a + b for a in SYLLABLES for b in SYLLABLES]
        pieces += words(4000, seed + 7)[::2]
        pieces += [chr(c) for c in range(97, 123)]
        self.vocab = {}
        for p in pieces:
            self.vocab.setdefault(p, 3 + len(self.vocab) % (vocab_size - 3))
        self.longest = max(len(p) for p in self.vocab)

    def encode_word(self, w):
        ids, i = [], 0
        while i < len(w):
            for j in range(min(len(w), i + self.longest), i, -1):
                if w[i:j] in self.vocab:
                    ids.append(self.vocab[w[i:j]])
                    i = j
                    break
            else:
                i += 1
        return ids

    def __call__(self, text, length):
        """Token ids of text, bos/eos added, cut or padded to length: a LongTensor. The whole
        text is tokenised before the cut, as tokenizer(text, truncation=True) does."""
        ids = [1]
        for w in text.lower().split():
            ids.extend(self.encode_word(w))
        ids = ids[:length - 1] + [2]
        return torch.tensor(ids + [0] * (length - len(ids)), dtype=torch.long)
