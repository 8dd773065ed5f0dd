"""The public datasets ``auditor example`` fetches: where each file lives upstream, at which commit, its SHA-256,
the licence and citation, and the module that lays the files out for ``auditor report``.

Every SHA-256 is of the upstream bytes, as the project's shared test data holds them (downloaded from the pinned
commit), except where a file is marked ``transcribed``: that copy was written from the text the upstream file
shows, so its bytes could differ from the download in ways the text does not show; its check is then of the
parsed content (:func:`auditor.datasets.fetch.digest`), which the transcription and the download share.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from auditor.datasets import cefr, germeval, goemotions, semeval, uner, wmt21


@dataclass(frozen=True)
class UpstreamFile:
    """One file of a dataset: its path in the repository, its name in the download folder, its SHA-256."""

    path: str
    name: str
    sha256: str
    #: The commit to fetch this file from, where it is not the dataset's.
    commit: str | None = None
    #: The recorded copy was transcribed from the upstream text: the check is of the parsed JSON.
    transcribed: bool = False


@dataclass(frozen=True)
class Dataset:
    """A public dataset: where it is, what it holds, how it is laid out and reported."""

    name: str
    title: str
    repository: str
    commit: str
    files: tuple[UpstreamFile, ...]
    licence: str
    citation: str
    builder: ModuleType
    #: Optional packages the builder imports (module names), checked before anything is downloaded.
    needs: tuple[str, ...] = ()


SEMEVAL_FILES = (
    UpstreamFile("data/gold/truth.txt", "gold/truth.txt",
                 "183a8a96ced4b45718f2380d8b1982240aa4035edc11c6be7570d2fb76ab5b57"),
    UpstreamFile("data/submissions/434773.txt", "submissions/434773.txt",
                 "cc0f59ee8624dcadd033d983e8bd96550ab3be79181141eace6aa5a3115c15c1"),
    UpstreamFile("data/submissions/434975.txt", "submissions/434975.txt",
                 "4031d92b8cb060a726d81c38c928bea5d93327d50f0dc84c71705f5815c5ded0"),
    UpstreamFile("data/submissions/435053.txt", "submissions/435053.txt",
                 "281942e6d5020d509eeaabd238eed8d429789bccd6fcff5bea221d8857d873d0"),
    UpstreamFile("data/submissions/435575.txt", "submissions/435575.txt",
                 "42ad8dd59d1664eb81f0ed09bb196f4c857113a4ca32688df3e1485cde8906f5"),
    UpstreamFile("data/submissions/436419.txt", "submissions/436419.txt",
                 "a76f374bd484e64a478cef59a70c7242ec5288d4c66f2178b94e78379b5f1624"),
    UpstreamFile("data/submissions/436471.txt", "submissions/436471.txt",
                 "7abb0901e371f0b2d2083b408c359488db7d98ad6b79d1fbfff5f1b4645dc101"),
    UpstreamFile("data/submissions/437000.txt", "submissions/437000.txt",
                 "6489175fb1a7690fc5de6010472bf44ee96b82f05c261f53a5936a464d13b8a7"),
    UpstreamFile("data/submissions/437256.txt", "submissions/437256.txt",
                 "48dd2cbf2e038c5bc99c75b1ac83352727c67ce6883621b676011625e632aa1b"),
    UpstreamFile("data/submissions/437296.txt", "submissions/437296.txt",
                 "1e237d6e7bb7bca97da0e7aa84891895391ea03cc85f91daeccf15f9a7be58db"),
    UpstreamFile("data/submissions/437321.txt", "submissions/437321.txt",
                 "4e332fa2dd972015cdf0c0b63f67c05f650e26cd3f49db3696f591bb723a46a0"),
    UpstreamFile("data/submissions/437591.txt", "submissions/437591.txt",
                 "303bfd04211d829c385cf51180879673f3737d3b4a0f109051bf94dbaf1cc62f"),
    UpstreamFile("data/submissions/437684.txt", "submissions/437684.txt",
                 "d2a64f5d1ec43c3c494072d1009428a5ca32dde0b7a6106183da805701161e7e"),
    UpstreamFile("data/submissions/437724.txt", "submissions/437724.txt",
                 "8799ee336482b82c9001a026b8822fbb9d03dbb59dab96ca38c90afb9f2c6bb5"),
    UpstreamFile("data/submissions/437777.txt", "submissions/437777.txt",
                 "df9d1ecd2eeda760453c925875d36fc81cdd47b4ed9a07c141e70314f949e41d"),
    UpstreamFile("data/submissions/437786.txt", "submissions/437786.txt",
                 "b2597d792b24dd18b96b248b9ffd5d56150799527b1186f783eafc94458db98d"),
    UpstreamFile("data/submissions/437859.txt", "submissions/437859.txt",
                 "b5d0791d8384dfa7a8caf90a54c3697a852be49762c901dca2827e94af15c308"),
    UpstreamFile("data/submissions/437892.txt", "submissions/437892.txt",
                 "a3014edf9b4e4a452f9b7b6269910571fa81e2e4a4fab4a4f548333e1b5545eb"),
    UpstreamFile("data/submissions/437952.txt", "submissions/437952.txt",
                 "6aee81b100dd898be69d6e0c904e6726c0ccbceef2fb3ee2bc086510bf841533"),
    UpstreamFile("data/submissions/437959.txt", "submissions/437959.txt",
                 "12ec845a60f75adc872113506860c45b7127a12e4a0c849a92b0fa3a5be4c39e"),
    UpstreamFile("data/submissions/438097.txt", "submissions/438097.txt",
                 "890d4eb2aa856d442c60de64ca3b498070e4947e0196fa934b95d1b646e457f4"),
    UpstreamFile("data/submissions/438181.txt", "submissions/438181.txt",
                 "56b9feff0e70fe9bc2e41b59e4e29bcb142393433f77e78d77fb8c5a1604232e"),
    UpstreamFile("data/submissions/438277.txt", "submissions/438277.txt",
                 "02520fdc12d41e2b90519df386fd73b723cac16bf8f7ef98ce5a1c53c09bd2ee"),
    UpstreamFile("data/submissions/438280.txt", "submissions/438280.txt",
                 "a9c8d76998762be78b9d450baec36cac552e506c03a4f43c6d086d59e505bb49"),
    UpstreamFile("data/submissions/metadata-public.xml", "submissions/metadata-public.xml",
                 "1d278738cb30a3deb4326ffeaabf4f76c845ab5874fedbd7f9ceeebd8919f9e4"),
)

DATASETS: dict[str, Dataset] = {d.name: d for d in (
    Dataset("germeval2018", "GermEval-2018, offensive language in German tweets (fine-grained task, 4 classes)",
            "uds-lsv/GermEval-2018-Data", "ac488de02eaf166ecb2671cca76584eeae8652cf",
            (UpstreamFile("germeval2018.training.txt", "germeval2018.training.txt",
                          "0f88c63a344e1ab69c5407aa539d1612cd82a96b51ebd6bd613dc70ff9fef03e"),
             UpstreamFile("germeval2018.test.txt", "germeval2018.test.txt",
                          "45f31510b305d080a933d4087b8d34f7a5e4087141718955b90357ca730074f2")),
            "CC-BY-4.0",
            "Michael Wiegand, Melanie Siegel and Josef Ruppenhofer (2018): Overview of the GermEval 2018 Shared Task "
            "on the Identification of Offensive Language. Proceedings of GermEval 2018 (KONVENS 2018), Vienna.",
            germeval, ("sklearn",)),
    Dataset("semeval2018-task12",
            "SemEval-2018 Task 12, argument reasoning comprehension (2 classes, 23 submissions)",
            "habernal/semeval2018-task12-results", "c5ce66793bee154ce35b051c7ae32c1cdb6f3763", SEMEVAL_FILES,
            "Apache-2.0",
            "Ivan Habernal, Henning Wachsmuth, Iryna Gurevych and Benno Stein (2018): SemEval-2018 Task 12: The "
            "Argument Reasoning Comprehension Task. Proceedings of SemEval-2018, New Orleans.",
            semeval),
    Dataset("uner-english-ewt", "UNER English-EWT, named-entity tagging (PER, ORG, LOC; IOB2)",
            "UniversalNER/UNER_English-EWT", "8ed072de2fd24022cc62458997fe96a8fe191ea4",
            (UpstreamFile("en_ewt-ud-dev.iob2", "en_ewt-ud-dev.iob2",
                          "0cafd881cf31d39897b6d588420fab8fbbe4423d271725c59921ac9dd49c0713"),
             UpstreamFile("en_ewt-ud-test.iob2", "en_ewt-ud-test.iob2",
                          "821ad826d5f503ac03b4edc3fbc2174f21fbb005ec25863caf2051c434616d6e")),
            "CC BY-SA 4.0",
            "Stephen Mayhew, Terra Blevins, Shuheng Liu, Marek Šuppa, Hila Gonen, Joseph Marvin Imperial, Börje F. "
            "Karlsson, Peiqin Lin, Nikola Ljubešić, LJ Miranda, Barbara Plank, Arij Riab and Yuval Pinter (2024): "
            "Universal NER: A Gold-Standard Multilingual Named Entity Recognition Benchmark. NAACL 2024.",
            uner, ("sklearn_crfsuite",)),
    Dataset("wmt21-ted-mqm", "WMT21 TED talks, English to German: 13 MT systems, expert MQM scores per segment",
            "google/wmt-mqm-human-evaluation", "7fadea281aff8db61cc72fc3d469a4dca78b82a6",
            (UpstreamFile("ted/ende/mqm_ted_ende.tsv", "mqm_ted_ende.tsv",
                          "3952dc904997dda31c03421243862cb8a093f9a712fd90dc97b9709b4bb387b3"),
             UpstreamFile("ted/ende/mqm_ted_ende.avg_seg_scores.tsv", "mqm_ted_ende.avg_seg_scores.tsv",
                          "4f46f24bb516f4fc0483de2790632eff39930977d9ebd778378a9a2561d3e125")),
            "Apache-2.0",
            "Markus Freitag, George Foster, David Grangier, Viresh Ratnakar, Qijun Tan and Wolfgang Macherey (2021): "
            "Experts, Errors, and Context: A Large-Scale Study of Human Evaluation for Machine Translation. TACL 9.",
            wmt21),
    Dataset("goemotions", "GoEmotions, multi-label emotions of Reddit comments (27 emotions + neutral)",
            "google-research/google-research", "2adf640a14f11025ae5a9d0ec493b78530d276d3",
            (UpstreamFile("goemotions/data/train.tsv", "train.tsv",
                          "1c254a142be5c00e80d819b9ae1bbd36d94b2eeb8f4b1271846508d57e57d9c5"),
             UpstreamFile("goemotions/data/test.tsv", "test.tsv",
                          "0587b2dd8b27b97352adbfc3fb083d46005c8946657fdc2b1ca8b1cc7f1f8be4",
                          commit="b91598b43297db06cca27a29fe2d0442dffea029"),
             UpstreamFile("goemotions/data/emotions.txt", "emotions.txt",
                          "45c3ef86782d2a4d7fedcd6d8c111aa0d0e94720689bd164fac94fefb4495a89",
                          commit="018cbe7892d848bc871d482fd2868089037e375f"),
             # transcribed: the shared copies of the two mappings were written from the upstream text
             UpstreamFile("goemotions/data/ekman_mapping.json", "ekman_mapping.json",
                          "ef87a28db3572665d3897316355acc024e43699716e136934f7ddf2928ef0002",
                          commit="7c35f3f048c1bbf1416bf12491e4a2e528f2f988", transcribed=True),
             UpstreamFile("goemotions/data/sentiment_dict.json", "sentiment_dict.json",
                          "deaf647472f6a23a0d1ce0e424ed670a06738cb25ec900c354616e37067e95e9",
                          commit="b91598b43297db06cca27a29fe2d0442dffea029", transcribed=True)),
            "Apache-2.0 (the texts are Reddit comments and may be offensive)",
            "Dorottya Demszky, Dana Movshovitz-Attias, Jeongwoo Ko, Alan Cowen, Gaurav Nemade and Sujith Ravi (2020): "
            "GoEmotions: A Dataset of Fine-Grained Emotions. ACL 2020.",
            goemotions, ("sklearn",)),
    Dataset("cefr-sp-wikiauto",
            "CEFR-SP, Wiki-Auto portion: sentence difficulty on the six CEFR levels, two annotators",
            "yukiar/CEFR-SP", "43738f774475ed7fc5c485137654307df7349021",
            (UpstreamFile("CEFR-SP/Wiki-Auto/CEFR-SP_Wikiauto_train.txt", "CEFR-SP_Wikiauto_train.txt",
                          "f431fbeae144844c929ddff594ae7a7ac927469478a9b524738d81e7f2759c48"),
             UpstreamFile("CEFR-SP/Wiki-Auto/CEFR-SP_Wikiauto_test.txt", "CEFR-SP_Wikiauto_test.txt",
                          "edefde3a3686e9f6fea9c738fde6628ab8fc26a6b5797f75023a274d76cc278a")),
            "CC BY-SA 3.0 (the Wiki-Auto portion)",
            "Yuki Arase, Satoru Uchida and Tomoyuki Kajiwara (2022): CEFR-Based Sentence Difficulty Annotation and "
            "Assessment. EMNLP 2022.",
            cefr, ("sklearn",)),
)}
