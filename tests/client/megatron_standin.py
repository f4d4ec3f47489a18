# SPDX-License-Identifier: BSD-3-Clause
# tests/client/megatron_standin.py: a stand-in for the parts of Megatron-LM
# (megatron/core/datasets: indexed_dataset.py, gpt_dataset.py,
# blended_dataset.py, blended_megatron_dataset_builder.py) that
# xio.megatron must work with. Megatron-LM cannot be installed here and its
# code is not copied: this is written from what those files do with a
# low-level dataset and a dataset class, so that xio.megatron is called the
# same way:
# - the builder calls cls.build_low_level_dataset(prefix, config) inside a
#   ThreadPoolExecutor, then cls.numel_low_level_dataset(it)
#   (sequence_lengths.shape[0]) and cls(low_level, prefix, indices (int32
#   arange of the split), num_samples, split, config);
# - GPTDataset asserts sequence_lengths.dtype == int32, builds a document
#   index (numpy RandomState(seed) shuffle of the split's sequence ids over
#   the epochs needed, int32), a sample index (int32 (doc position, offset)
#   pairs over the flattened documents, each sample sequence_length + 1
#   tokens) and a shuffle index (RandomState shuffle of uint32 ids), caches
#   them under config.path_to_cache or PREFIX/cache/GPTDataset_indices named
#   by the md5 of a description holding type(self).__name__ and the prefix;
#   a sample calls get(document_index[i] (numpy int32), offset=int(...),
#   length=numpy int32 or None), one call per document it spans, and
#   concatenates to int64;
# - BlendedDataset picks, for sample i, the source whose weight x max(i, 1)
#   exceeds the samples it gave most (ties: the lowest index), and returns
#   {"dataset_id": d, **datasets[d][sample of d]}.
import hashlib
import json
import math
import os
from abc import ABC
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch


class Split:
    names = ("train", "valid", "test")


class Config:
    def __init__(self, blend, split, sequence_length, path_to_cache, random_seed=1234,
                 num_dataset_builder_threads=2, mid_level_dataset_surplus=0.005):
        self.blend, self.sequence_length = blend, sequence_length
        self.path_to_cache, self.random_seed = path_to_cache, random_seed
        self.num_dataset_builder_threads = num_dataset_builder_threads
        self.mid_level_dataset_surplus = mid_level_dataset_surplus
        parts = [float(x) for x in split.split(",")]
        bounds = np.cumsum([0.0] + [p / sum(parts) for p in parts])
        self.split_matrix = [(bounds[i], bounds[i + 1]) for i in range(3)]


class LocalIndexedDataset:
    """The local files (PREFIX.idx, PREFIX.bin, UINT16), read as
    Megatron-LM's IndexedDataset reads them (numpy over a memory map)."""

    def __init__(self, path_prefix):
        self.path_prefix = path_prefix
        raw = np.memmap(path_prefix + ".idx", mode="r")
        assert bytes(raw[:9]) == b"MMIDIDX\x00\x00" and raw[17] == 8
        n, d = (int(v) for v in np.frombuffer(raw, "<u8", 2, 18))
        self.sequence_lengths = np.frombuffer(raw, np.int32, n, 34)
        self.sequence_pointers = np.frombuffer(raw, np.int64, n, 34 + 4 * n)
        self.document_indices = np.frombuffer(raw, np.int64, d, 34 + 12 * n)
        self.bin = np.memmap(path_prefix + ".bin", dtype=np.uint16, mode="r")

    def __len__(self):
        return len(self.sequence_lengths)

    def get(self, idx, offset=0, length=None):
        size = self.sequence_lengths[idx]
        if length is None:
            length = size - offset
        first = self.sequence_pointers[idx] // 2 + offset
        return np.array(self.bin[first:first + length])


class GPTDataset(ABC, torch.utils.data.Dataset):
    def __init__(self, dataset, dataset_path, indices, num_samples, index_split, config):
        self.dataset, self.dataset_path, self.indices = dataset, dataset_path, indices
        self.num_samples, self.index_split, self.config = num_samples, index_split, config
        ids = OrderedDict(cls=type(self).__name__, dataset_path=dataset_path,
                          num_samples=num_samples, index_split=index_split,
                          random_seed=config.random_seed, sequence_length=config.sequence_length)
        self.unique_description = json.dumps(ids, indent=4)
        self.unique_description_hash = hashlib.md5(self.unique_description.encode()).hexdigest()
        self.document_index, self.sample_index, self.shuffle_index = self._build_indices()

    @staticmethod
    def numel_low_level_dataset(low_level_dataset):
        return low_level_dataset.sequence_lengths.shape[0]

    @staticmethod
    def build_low_level_dataset(dataset_path, config):
        return LocalIndexedDataset(dataset_path)

    def cache_base(self):
        cache = self.config.path_to_cache or os.path.join(
            self.dataset.path_prefix, "cache", "%s_indices" % type(self).__name__)
        return os.path.join(cache, "%s-%s-%s" % (self.unique_description_hash,
                                                 type(self).__name__, self.index_split))

    def _build_indices(self):
        base = self.cache_base()
        if os.path.isfile(base + "-shuffle_index.npy"):
            return tuple(np.load(base + "-%s.npy" % a, mmap_mode="r")
                         for a in ("document_index", "sample_index", "shuffle_index"))
        seq_len = self.config.sequence_length
        assert self.dataset.sequence_lengths.dtype == np.int32
        sizes = self.dataset.sequence_lengths
        per_epoch = int(np.sum(sizes[self.indices]))
        epochs = 1
        if self.num_samples is not None:
            while epochs * per_epoch < self.num_samples * seq_len + 1:
                epochs += 1
        rs = np.random.RandomState(self.config.random_seed)
        doc_index = np.tile(self.indices, epochs).astype(np.int32)
        rs.shuffle(doc_index)
        nsamples = (epochs * per_epoch - 1) // seq_len
        ends = np.cumsum(sizes[doc_index].astype(np.int64))
        starts = np.arange(nsamples + 1, dtype=np.int64) * seq_len
        pos = np.searchsorted(ends, starts, side="right")
        offs = starts - (ends[pos] - sizes[doc_index[pos]])
        sample_index = np.stack([pos, offs], axis=1).astype(np.int32)
        shuffle_index = np.arange(nsamples, dtype=np.uint32)
        rs.shuffle(shuffle_index)
        os.makedirs(os.path.dirname(base), exist_ok=True)
        with open(base + "-description.txt", "w") as f:
            f.write(self.unique_description)
        for a, v in (("document_index", doc_index), ("sample_index", sample_index),
                     ("shuffle_index", shuffle_index)):
            np.save(base + "-%s.npy" % a, v)
        return doc_index, sample_index, shuffle_index

    def __len__(self):
        return self.sample_index.shape[0] - 1

    def _query_document_sample_shuffle_indices(self, idx):
        idx = self.shuffle_index[idx]
        b, ob = self.sample_index[idx]
        e, oe = self.sample_index[idx + 1]
        if b == e:
            parts = [self.dataset.get(self.document_index[b], offset=int(ob),
                                      length=oe - ob + 1)]
        else:
            parts = [self.dataset.get(self.document_index[i], offset=int(ob if i == b else 0),
                                      length=None if i < e else oe + 1)
                     for i in range(b, e + 1)]
        return np.concatenate(parts, dtype=np.int64), None, [len(p) for p in parts]

    def __getitem__(self, idx):
        text, _, _ = self._query_document_sample_shuffle_indices(0 if idx is None else idx)
        text = torch.from_numpy(text).long()
        return {"tokens": text[:-1].contiguous(), "labels": text[1:].contiguous()}


class BlendedDataset(torch.utils.data.Dataset):
    def __init__(self, datasets, weights, size):
        assert all(type(d) == type(datasets[0]) for d in datasets)
        self.datasets = datasets
        w = np.array(weights, dtype=np.float64) / sum(weights)
        self.dataset_index = np.zeros(size, dtype=np.int16)
        self.dataset_sample_index = np.zeros(size, dtype=np.int64)
        given = np.zeros(len(datasets), dtype=np.int64)
        for i in range(size):
            d = int(np.argmax(w * max(i, 1) - given))
            self.dataset_index[i], self.dataset_sample_index[i] = d, given[d]
            given[d] += 1
        for d, n in enumerate(given):
            assert n <= len(datasets[d]), "the blend oversamples dataset %d" % d

    def __len__(self):
        return len(self.dataset_index)

    def __getitem__(self, idx):
        d = self.dataset_index[idx]
        return {"dataset_id": d, **self.datasets[d][self.dataset_sample_index[idx]]}


class BlendedMegatronDatasetBuilder:
    def __init__(self, cls, sizes, is_built_on_rank, config):
        self.cls, self.sizes, self.config = cls, sizes, config

    def _splits(self, prefix, sizes):
        low = self.cls.build_low_level_dataset(prefix, self.config)
        n = self.cls.numel_low_level_dataset(low)
        out = []
        for i, name in enumerate(Split.names):
            lo, hi = self.config.split_matrix[i]
            indices = np.arange(int(round(lo * n)), int(round(hi * n)), dtype=np.int32)
            out.append(self.cls(low, prefix, indices, sizes[i], name, self.config))
        return out

    def build(self):
        prefixes, weights = self.config.blend
        w = [x / sum(weights) for x in weights]
        target = [[int(math.ceil(s * x)) for s in self.sizes] for x in w]
        buffer = [[int(math.ceil(math.ceil(s * x) * (1 + self.config.mid_level_dataset_surplus)))
                   for s in self.sizes] for x in w]
        with ThreadPoolExecutor(self.config.num_dataset_builder_threads) as pool:
            built = list(pool.map(self._splits, prefixes, buffer))
        return [BlendedDataset([b[i] for b in built], w, sum(t[i] for t in target))
                for i in range(3)]
