"""Agreement statistics for human studies: kappa, alpha, ICC, rank statistics, correlations, bootstrap CIs.

Every function returns a small result object carrying the value, the number of units it rests on and, when the
statistic is undefined for the data, ``value = nan``, ``defined = False`` and a ``reason``. Each is tested
against statsmodels, krippendorff, pingouin or scipy and against the worked examples of the original papers.
"""

from creval.agreement._result import StatResult
from creval.agreement.alpha import krippendorff_alpha
from creval.agreement.bootstrap import bootstrap_ci
from creval.agreement.correlation import correlation
from creval.agreement.icc import ICCForm, ICCResult, icc
from creval.agreement.kappa import ACCEPTABLE_VS_BAD, cohen_kappa, fleiss_kappa, fleiss_kappa_by, fleiss_table
from creval.agreement.labels import interpret_alpha, interpret_icc, interpret_kappa
from creval.agreement.rank import (
    FriedmanResult,
    friedman,
    holm,
    kendall_tau_b,
    kendall_tau_pages,
    nemenyi,
    wilcoxon_holm,
)

__all__ = [
    "ACCEPTABLE_VS_BAD",
    "FriedmanResult",
    "ICCForm",
    "ICCResult",
    "StatResult",
    "bootstrap_ci",
    "cohen_kappa",
    "correlation",
    "fleiss_kappa",
    "fleiss_kappa_by",
    "fleiss_table",
    "friedman",
    "holm",
    "icc",
    "interpret_alpha",
    "interpret_icc",
    "interpret_kappa",
    "kendall_tau_b",
    "kendall_tau_pages",
    "krippendorff_alpha",
    "nemenyi",
    "wilcoxon_holm",
]
