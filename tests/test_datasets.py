"""The dataset builders of ``auditor/datasets`` write, from the public files in ``../shared/data``, exactly the
files the project used to commit (their SHA-256 recorded here on 2026-11-27 from the tracked copies that
these builders replace: ``examples/uner-english-ewt/systems/*`` by its make_systems.py with sklearn-crfsuite 0.5.0 /
python-crfsuite 0.9.12, ``examples/wmt21-ted-ende/*`` by its build.py)."""
from __future__ import annotations

import hashlib

import pytest

UNER_SYSTEMS = {
    "capitalised": "694fa3a54e7fa60cad1952caca624bf1df08150ce640b1406edde050b6a22b4a",
    "crf-few": "b5167b35479a1782a0d76387f01919b052a8527e4332d49173d89561c803ff8b",
    "crf-rich-iob1": "485f47f265be3c3e3a13cda3163f7c9b3eb1a10906b9fb7b3ea87fddef73ad3c",
    "crf-rich": "6a84af6514a557130ffe4810b13099d637dbe186af92a6996921cc22cfc73397",
    "gazetteer": "b64bf65625fe1da52a5b0e9d6f8f0fbddc201a96f84177d2914808e88d835fd0",
}

WMT21_FILES = {
    "ref.txt": "7c77af79e53b239cc036fd7ff789f469cf9cc4437e37ee040e0e0908d8bf10fd",
    "human.tsv": "cbd53a6fc75564e9ffda96893cfa1d4e9c244884fefaeb4e3178320bd28db70d",
    "systems/Facebook-AI.txt": "9f26f584f3a4c9f1ef3331e5eb7eb0f0b5fca84e469d748bc8e568c29fc68cab",
    "systems/HuaweiTSC.txt": "0c58670350dfcef9cc64599a0d4c83cc235b08a01d43594546057506414fc930",
    "systems/Nemo.txt": "1b0d1840f2cdb01916180ce5c0f60fa43053504c506728d119bf47adc4cf9bf7",
    "systems/Online-W.txt": "74ab71436fd22f8dedba6c5373ed38f324f5a30981c00b8705e7f035261d413f",
    "systems/UEdin.txt": "3dc9751bdc33cf55ab5cd1742ac25512132cd181f3a58fb6ca319f7417492c79",
    "systems/VolcTrans-AT.txt": "abb34040cd480931f0f5be04c4bb4cfe9310b489a2259782c506fd8313bd99bb",
    "systems/VolcTrans-GLAT.txt": "aacaf2066e74a4e4d7d9fbd3ee8ae30d694b840c5eeeeaf79996075be66f5038",
    "systems/eTranslation.txt": "d242db3c2481f95c0fab4987b3e401e478c351a1a4d5cd806d9e3e90f78bf58c",
    "systems/metricsystem1.txt": "c47999f4420c253e27758eb1b8e4add25cd97077b4c6ee49ff87b4f178c83919",
    "systems/metricsystem2.txt": "fed6d7ae8f31f940cf5eaa924ea145d263560eff4b06ad057f4afb2d77d64bb6",
    "systems/metricsystem3.txt": "d7a7b9b082a134f8d412ed039bfc740e50dc075bb7bf783a85340b24ea562dd7",
    "systems/metricsystem4.txt": "b27edc211f92b2ad3a4367bf823545cc523b4a60abc6497afd36f20a48b47f74",
    "systems/metricsystem5.txt": "f1244ac2254bcaac951e32725c08c592c9cb24ec85528b4a2f73dc19265236c3",
}


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_uner_taggers_are_the_ones_the_project_committed(uner_dir, shared_data):
    assert sha256(uner_dir / "gold.iob2") == sha256(shared_data / "uner-english-ewt" / "en_ewt-ud-test.iob2")
    assert {p.stem: sha256(p) for p in (uner_dir / "systems").glob("*.iob2")} == UNER_SYSTEMS


def test_wmt21_files_are_the_ones_the_project_committed(wmt21_dir):
    built = {str(p.relative_to(wmt21_dir)): sha256(p) for p in wmt21_dir.rglob("*") if p.is_file()}
    assert built == WMT21_FILES
    assert len((wmt21_dir / "ref.txt").read_text(encoding="utf-8").splitlines()) == 529


def test_wmt21_two_texts_for_one_segment_is_one_clear_error(tmp_path):
    from auditor.datasets import wmt21
    from auditor.errors import InputError

    header = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
    (tmp_path / wmt21.ANNOTATIONS).write_text(header + "ref\td\t1\t7\tr\ts\tEin <v>Satz</v>\tc\tMinor\t\n"
                                              "ref\td\t1\t7\tr\ts\tEin Hund\tc\tMinor\t\n", encoding="utf-8")
    (tmp_path / wmt21.SCORES).write_text("system\tmqm_avg_score seg_id\nref-A\t0 7\n", encoding="utf-8")
    with pytest.raises(InputError, match="segment 7 has two different texts"):
        wmt21.lay_out(tmp_path, tmp_path / "out")


def test_germeval_and_semeval_folders(germeval_dir, semeval2018_dir):
    assert len((germeval_dir / "gold.tsv").read_text(encoding="utf-8").splitlines()) == 3533
    assert len(list((germeval_dir / "systems").glob("*.tsv"))) == 8
    assert len(list((semeval2018_dir / "submissions").glob("*.txt"))) == 23
