"""Arrays from other libraries: DLPack producers (PyTorch, JAX, CuPy) read in place in host
memory, copied once (with a warning) from a device, and refused with advice when they cannot be."""
import warnings

import numpy as np
import pytest

import rankwise as rw


class HostArray:
    """A DLPack producer in host memory, as a CPU tensor is (NumPy's own capsule)."""

    def __init__(self, a):
        self.a = np.asarray(a)

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0)


class DeviceArray(HostArray):
    """A producer on a GPU that can export a host copy when asked (DLPack 1.0's dl_device)."""

    def __dlpack_device__(self):
        return (2, 1)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if dl_device is None or dl_device[0] != 1 or not copy:
            raise BufferError("the data lives on the GPU")
        return self.a.copy().__dlpack__()


class StuckDeviceArray(DeviceArray):
    def __dlpack__(self, **kwargs):
        raise BufferError("cannot export to the host")


Y_TRUE = np.array([[0, 1, 0, 2], [1, 0, 0, 0]])
Y_SCORE = np.array([[0.9, 0.8, 0.7, 0.1], [0.3, 0.3, 0.1, 0.1]])


def test_host_producers_are_read_in_place_everywhere():
    want = rw.evaluate(Y_TRUE, Y_SCORE, ["MRR", "nDCG@3"]).mean()
    assert rw.evaluate(HostArray(Y_TRUE), HostArray(Y_SCORE), ["MRR", "nDCG@3"]).mean() == want
    from rankwise._core.validation import as_array
    source = HostArray(Y_SCORE)
    assert np.shares_memory(as_array(source, "y_score"), Y_SCORE)
    assert rw.top_k(HostArray(Y_SCORE), 2).tolist() == rw.top_k(Y_SCORE, 2).tolist()
    assert rw.evaluate_topk(HostArray(Y_TRUE), HostArray(np.array([[0, 1], [1, 0]])), ["P@2"]).mean() == \
        rw.evaluate_topk(Y_TRUE, np.array([[0, 1], [1, 0]]), ["P@2"]).mean()
    run = rw.Run.from_arrays(HostArray(np.array([1, 1])), HostArray(np.array([7, 8])), HostArray(np.array([.5, .2])))
    assert run.to_dict() == {1: {7: 0.5, 8: 0.2}}
    ranks = rw.rank_positive(HostArray(np.array([0.5, 0.2])), HostArray(np.array([[0.1, 0.6], [0.3, 0.1]])))
    assert ranks.optimistic.tolist() == [2, 2]


def test_device_arrays_are_copied_once_with_a_warning():
    with pytest.warns(UserWarning, match=r"y_score is an array on cuda:1: rankwise copied it to host memory once"):
        got = rw.evaluate(Y_TRUE, DeviceArray(Y_SCORE), ["MRR"]).mean()
    assert got == rw.evaluate(Y_TRUE, Y_SCORE, ["MRR"]).mean()
    with pytest.raises(TypeError, match=r"y_true is an array on cuda:1, and rankwise computes in host memory: "
                                        r"copy it there first \(y_true.cpu\(\) in PyTorch"):
        rw.evaluate(StuckDeviceArray(Y_TRUE), Y_SCORE, ["MRR"])


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    scores = torch.tensor(Y_SCORE)
    from rankwise._core.validation import as_array
    assert np.shares_memory(as_array(scores, "y_score"), scores.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a CPU tensor is read in place: no copy, no warning
        assert rw.evaluate(torch.tensor(Y_TRUE), scores, ["MRR"]).mean() == rw.evaluate(Y_TRUE, Y_SCORE,
                                                                                         ["MRR"]).mean()
    with pytest.raises(TypeError, match=r"y_score is a tensor that requires grad: pass y_score.detach\(\)"):
        rw.evaluate(Y_TRUE, scores.clone().requires_grad_(True), ["MRR"])
    half = torch.tensor(Y_SCORE, dtype=torch.bfloat16)    # no NumPy dtype: converted as torch converts it
    with pytest.raises(TypeError, match=r"y_score holds torch.bfloat16, which NumPy cannot hold: convert it"):
        rw.evaluate(Y_TRUE, half, ["MRR"])
    assert rw.evaluate(Y_TRUE, scores.T.contiguous().T, ["MRR"]).mean() == rw.evaluate(Y_TRUE, Y_SCORE,
                                                                                        ["MRR"]).mean()
