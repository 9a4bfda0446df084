"""The one name grammar and the one "unknown name" error, as every domain shows it."""
import pytest

import rankwise as rw
from rankwise._core.names import split_name, split_parameters, unknown_name

R = rw.Ranks.from_ranks([1, 2])


def test_split_name():
    assert split_name("rbp(p=0.9)@10") == ("rbp", "p=0.9", "10")
    assert split_name("hits@10") == ("hits", None, "10")
    assert split_name("ap") == ("ap", None, None)


def test_split_parameters_takes_the_longest_root():
    roots = ["map", "map_cut", "P"]
    assert split_parameters("map_cut_10", roots) == ("map_cut", "10")
    assert split_parameters("p.5,10", roots) == ("P", "5,10")
    assert split_parameters("map_", roots) is None and split_parameters("mapx", roots) is None


def test_unknown_name_suggests_or_lists():
    assert str(unknown_name("mrrr", ["MRR", "MAP"])) == "unknown metric 'mrrr'; did you mean 'MRR'?"
    assert str(unknown_name("zzz", ["MRR", "MAP"], "rank metric")) == \
        "unknown rank metric 'zzz'; valid names include MRR, MAP"


@pytest.mark.parametrize("call, message", [
    (lambda: rw.evaluate([[1, 0]], [[0.2, 0.1]], ["nDGC@10"]), "unknown metric 'nDGC@10'; did you mean 'nDCG@10'?"),
    (lambda: rw.rank_metrics(R, ["MRRR"]), "unknown rank metric 'MRRR'; did you mean 'MRR'?"),
    (lambda: rw.rank_metrics(R, ["MRR(x)"]), "unknown rank metric 'MRR(x)'; did you mean 'MRR'?"),
    (lambda: rw.trec_eval(rw.Qrels.from_dict({"q": {"d": 1}}), rw.Run.from_dict({"q": {"d": 1.0}}), ["mapp"]),
     "unknown trec_eval measure 'mapp'; did you mean 'map'?"),
])
def test_every_domain_raises_the_same_error(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert type(info.value) is ValueError and str(info.value) == message
