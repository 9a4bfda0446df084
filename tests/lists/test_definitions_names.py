"""The metric-definition options in names: denom (AP, R) and ideal (nDCG)."""
import pickle

import pytest

from rankwise._core._enums import Metric, Variant
from rankwise.lists.names import MetricSpec, make_spec, parse_metric


@pytest.mark.parametrize("text, name, variant", [
    ("AP(denom=min)@10", "AP(denom=min)@10", Variant.BY_MIN),
    ("ap(DENOM=Min)@10", "AP(denom=min)@10", Variant.BY_MIN),
    ("R(denom=min)@20", "R(denom=min)@20", Variant.BY_MIN),
    ("recall(denom=MIN)@20", "R(denom=min)@20", Variant.BY_MIN),
    ("AP(denom=hits)@10", "AP(denom=hits)@10", Variant.BY_HITS),
    ("map(denom=hits)@10", "AP(denom=hits)@10", Variant.BY_HITS),
    ("nDCG(ideal=all)@10", "nDCG(ideal=all)@10", Variant.IDEAL_ALL),
    ("ndcg(ideal=ALL, gain=exponential)@10", "nDCG(gain=exponential, ideal=all)@10", Variant.IDEAL_ALL),
    ("AP(denom=R)@10", "AP@10", Variant.DEFAULT),
    ("AP(denom=r)@10", "AP@10", Variant.DEFAULT),
    ("R(denom=R)@5", "R@5", Variant.DEFAULT),
    ("nDCG(ideal=cut)@10", "nDCG@10", Variant.DEFAULT),
    ("AP@10", "AP@10", Variant.DEFAULT),
    ("nDCG@10", "nDCG@10", Variant.DEFAULT),
])
def test_names_and_variants(text, name, variant):
    spec = parse_metric(text)
    assert spec.name == name
    assert spec.variant == variant
    assert parse_metric(spec.name) == spec  # the canonical name parses back to an equal spec


def test_an_explicit_default_equals_the_default_but_stays_set():
    explicit, default = parse_metric("AP(denom=R)@10"), parse_metric("AP@10")
    assert explicit == default and hash(explicit) == hash(default)
    assert explicit.denom == "R" and default.denom is None
    assert parse_metric("nDCG(ideal=cut)@3") == parse_metric("ndcg_cut_3")
    assert parse_metric("AP(denom=min)@10") != default
    assert parse_metric("AP(denom=min)@10") != parse_metric("AP(denom=hits)@10")
    assert parse_metric("nDCG(ideal=all)@10") != parse_metric("nDCG@10")
    assert len({explicit, default, parse_metric("map_cut_10")}) == 1
    assert pickle.loads(pickle.dumps(explicit)) == explicit


def test_make_spec_accepts_any_case_and_validates():
    assert make_spec(Metric.AP, 5, where="x", denom="MIN").denom == "min"
    assert make_spec(Metric.RECALL, 5, where="x", denom="r").denom == "R"
    assert make_spec(Metric.NDCG, 5, where="x", ideal="All").ideal == "all"
    assert MetricSpec(Metric.AP, 3, denom="R") == MetricSpec(Metric.AP, 3)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"kind": Metric.RECALL, "denom": "hits"}, ValueError, r"recall\(\): denom='hits' applies to AP only, not to R"),
    ({"kind": Metric.PRECISION, "denom": "min"}, ValueError, r"denom applies to AP and R only, not to P"),
    ({"kind": Metric.NDCG, "denom": "min"}, ValueError, r"denom applies to AP and R only, not to nDCG"),
    ({"kind": Metric.AP, "ideal": "all"}, ValueError, r"ideal applies to nDCG only, not to AP"),
    ({"kind": Metric.DCG, "ideal": "all"}, ValueError, r"ideal applies to nDCG only, not to DCG"),
    ({"kind": Metric.AP, "denom": "max"}, ValueError, r"denom must be 'R' or 'min' or 'hits', got 'max'"),
    ({"kind": Metric.NDCG, "ideal": "some"}, ValueError, r"ideal must be 'cut' or 'all', got 'some'"),
    ({"kind": Metric.AP, "denom": 1}, TypeError, r"denom must be 'R' or 'min' or 'hits', got 1"),
    ({"kind": Metric.NDCG, "ideal": True}, TypeError, r"ideal must be 'cut' or 'all', got True"),
])
def test_make_spec_errors_name_the_metric(kwargs, exc, match):
    kind = kwargs.pop("kind")
    with pytest.raises(exc, match=match):
        make_spec(kind, 10, where="recall()", **kwargs)


@pytest.mark.parametrize("name, match", [
    ("R(denom=hits)@10", r"metric 'R\(denom=hits\)@10': denom='hits' applies to AP only"),
    ("nDCG(denom=min)@10", r"metric 'nDCG\(denom=min\)@10': unknown parameter 'denom=min' for nDCG"),
    ("P(denom=min)@10", r"unknown parameter 'denom=min' for P"),
    ("AP(ideal=all)@10", r"unknown parameter 'ideal=all' for AP"),
    ("AP(denom=max)@10", r"metric 'AP\(denom=max\)@10': invalid value 'max' for parameter 'denom'"),
    ("nDCG(ideal=)@10", r"invalid value '' for parameter 'ideal'"),
])
def test_bad_definition_options_in_names(name, match):
    with pytest.raises(ValueError, match=match):
        parse_metric(name)
