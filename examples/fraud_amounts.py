"""What ranking and deciding by the average cost matrix loses when each transaction has its amount.

Synthetic card transactions (the generator, :func:`transactions`): three features
``x ~ N(0, I)``, an amount ``a ~ lognormal(3.5, 1.2)`` (median about 33), and fraud with
probability ``sigmoid(-4 + 1.2 x0 - 0.8 x1 + 0.6 (log a - 3.5))``: larger transactions are
more often fraudulent. The utility is the scikit-learn gallery's fraud metric
(``plot_cost_sensitive_learning``): refusing a fraud gains 50, accepting it loses its amount,
refusing a legitimate transaction costs 5, accepting it earns 2 % of its amount.

A logistic regression on ``x`` and ``log a`` is fitted on 50,000 transactions; on 50,000 others
four policies decide:

- **per item**: the decision of maximal expected utility for each transaction, with its own
  amount (``UtilityClassifier`` with the per-item utility, ``predict(X, amount=...)``);
- **one tuned threshold**: ``TunedThresholdClassifierCV`` with the per-item scorer (the
  gallery's approach: the amounts choose one threshold, not each decision);
- **average matrix**: the decision of maximal expected utility under the average-cost matrix
  (the per-item utility averaged over the training transactions);
- **oracle**: the best decision knowing the true class (an upper bound).

Each policy's yield (mean utility per transaction) is given with its 95 % interval, and the
loss of the average matrix (per item minus average matrix) with its interval, from the
Bayesian bootstrap over the test transactions (``mcrank.evaluate.per_item``).

Then **misranking**: in each of 200 replications (fresh training and test sets of 5,000), two
models decide per item, one that sees the amount but not ``x1``, one that sees ``x1`` but not
the amount; ranking them by the average-cost matrix (from their confusion matrices) is
compared with ranking them by their per-item yields. The rate of disagreement is given with a
95 % Jeffreys interval (the replications are independent).

Needs scikit-learn. Run: ``python examples/fraud_amounts.py`` (about a minute). docs/decisions.md
shows its output.
"""

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import TunedThresholdClassifierCV
from threadpoolctl import threadpool_limits

from mcrank.decisions import optimal_decisions
from mcrank.evaluate.per_item import average_matrix, bayesian_bootstrap, parse_affine
from mcrank.sklearn import UtilityClassifier, make_utility_scorer

SEED = 2026
ITEMS = 50_000
REPLICATIONS = 200
REPLICATION_ITEMS = 5_000
SAMPLES = 4000
#: The gallery's fraud metric; rows refuse, accept; columns fraud, legitimate.
UTILITY = parse_affine({
    "classes": ["fraud", "legitimate"],
    "decisions": ["refuse", "accept"],
    "cells": {"refuse": {"fraud": 50, "legitimate": -5}, "accept": {"fraud": {"amount": -1}, "legitimate": {"amount": 0.02}}},
})  # fmt: skip
#: y = 1 is fraud, the utility's first column; prediction 1 is "refuse", its first row.
LABELS = [1, 0]


def transactions(n: int, rng: np.random.Generator):
    """Features (x0, x1, x2, log amount), fraud (1) or not (0), and amounts."""
    x = rng.normal(size=(n, 3))
    amount = rng.lognormal(3.5, 1.2, n)
    logit = -4 + 1.2 * x[:, 0] - 0.8 * x[:, 1] + 0.6 * (np.log(amount) - 3.5)
    fraud = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return np.column_stack([x, np.log(amount)]), fraud, amount


def class_index(y):
    """Column of the utility: fraud (y = 1) is 0, legitimate 1."""
    return 1 - y


def policies(rng):
    X, y, amount = transactions(2 * ITEMS, rng)
    train, test = slice(0, ITEMS), slice(ITEMS, None)
    per_item = UtilityClassifier(LogisticRegression(), UTILITY, labels=LABELS, decisions=LABELS).fit(X[train], y[train])
    probabilities = per_item.predict_proba(X[test])  # columns fraud, legitimate
    u_test = UTILITY.array({"amount": amount[test]})
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_utility_scorer(UTILITY, labels=LABELS, decisions=LABELS).set_score_request(amount=True)
        tuned = TunedThresholdClassifierCV(LogisticRegression(), scoring=scorer, thresholds=200, random_state=SEED)
        tuned.fit(X[train], y[train], amount=amount[train])
    average = average_matrix(UTILITY.array({"amount": amount[train]}))
    truth = class_index(y[test])
    decisions = {
        "per item": 1 - per_item.predict(X[test], amount=amount[test]),  # refuse (1) is row 0
        "one tuned threshold": 1 - tuned.predict(X[test]),
        "average matrix": optimal_decisions(probabilities, average),
        "oracle": np.argmax(u_test[np.arange(truth.shape[0]), :, truth], axis=1),
    }
    return u_test, truth, decisions, tuned.best_threshold_, average


def misranking(rng):
    """Per replication, whether the average-cost matrix ranks the two models otherwise than their per-item yields."""
    disagree = 0
    for _ in range(REPLICATIONS):
        X, y, amount = transactions(2 * REPLICATION_ITEMS, rng)
        train, test = slice(0, REPLICATION_ITEMS), slice(REPLICATION_ITEMS, None)
        u_test = UTILITY.array({"amount": amount[test]})
        average = average_matrix(u_test)
        truth = class_index(y[test])
        yields, average_yields = [], []
        for features in ([0, 2, 3], [0, 1, 2]):  # sees the amount, not x1; sees x1, not the amount
            model = UtilityClassifier(LogisticRegression(), UTILITY, labels=LABELS, decisions=LABELS).fit(X[train][:, features], y[train])
            decided = 1 - model.predict(X[test][:, features], amount=amount[test])
            yields.append(u_test[np.arange(truth.shape[0]), decided, truth].mean())
            average_yields.append(average[decided, truth].mean())
        disagree += (yields[0] - yields[1]) * (average_yields[0] - average_yields[1]) < 0
    return disagree


def main() -> None:
    from scipy.stats import beta

    rng = np.random.default_rng(SEED)
    with threadpool_limits(1):
        u_test, truth, decisions, threshold, average = policies(rng)
        posterior = bayesian_bootstrap(u_test, truth, decisions, samples=SAMPLES, rng=SEED)
        disagree = misranking(rng)
    print(f"{ITEMS} test transactions, {int((truth == 0).sum())} frauds; amounts lognormal(3.5, 1.2)")
    print(f"average-cost matrix (training set): refuse {average[0, 0]:.2f}, {average[0, 1]:.2f}; "
          f"accept {average[1, 0]:.2f}, {average[1, 1]:.2f}; tuned threshold {threshold:.3f}")  # fmt: skip
    print()
    print("Yield per transaction [95 % interval], Bayesian bootstrap over the test transactions")
    for k, name in enumerate(decisions):
        yield_ = u_test[np.arange(truth.shape[0]), decisions[name], truth].mean()
        low, high = posterior.intervals[name]
        refused = (decisions[name] == 0).mean()
        print(f"  {name:<20} {yield_:+8.3f} [{low:+8.3f}, {high:+8.3f}]  refuses {refused:6.2%}")
    names = list(decisions)
    loss = posterior.draws[:, names.index("per item")] - posterior.draws[:, names.index("average matrix")]
    observed = (
        u_test[np.arange(truth.shape[0]), decisions["per item"], truth]
        - u_test[np.arange(truth.shape[0]), decisions["average matrix"], truth]
    ).mean()
    low, high = np.quantile(loss, (0.025, 0.975))
    print(f"Loss of deciding by the average matrix: {observed:.3f} per transaction [{low:.3f}, {high:.3f}], "
          f"P(per item better) = {(loss > 0).mean():.3f}")  # fmt: skip
    low, high = beta.ppf((0.025, 0.975), disagree + 0.5, REPLICATIONS - disagree + 0.5)
    print()
    print(f"Ranking two models by the average-cost matrix picks the one with the lower per-item yield in {disagree} of "
          f"{REPLICATIONS} replications: {disagree / REPLICATIONS:.1%} [{low:.1%}, {high:.1%}]")  # fmt: skip


if __name__ == "__main__":
    main()
