"""What a flip probability of ``evaluate --test-uncertainty`` means: a calibration table.

A flip probability is a posterior probability given the test set: averaged over populations
drawn from the prior it is calibrated (tests/test_test_uncertainty.py checks that), but for one
fixed population it is not the error rate of a test. Here two classifiers of two classes on
populations close to a tie: they agree on 90 % of the items, and on the 10 % where they
differ A is right a fraction (1 + r) / 2 of the time, so A's accuracy (the yield under the
identity utility) exceeds B's by 0.1 r. From each population, test sets of 200 items, labelled
item by item; for each, the exact flip probability p of the observed order. The table gives how
often p < 0.05, and how often the order was then wrong (B ahead on the test set). The last row
draws a new population for every test set from the prior itself (Dirichlet, total count 1
over the 8 joint cells): there, and only there, the orders reported with p < 0.05 are wrong
about as often as the mean p they report. Run from the repository's root (about half a minute)::

    python scripts/calibration_table.py
"""

import numpy as np

from mcrank.evaluate import ItemLabels
from mcrank.evaluate.uncertainty import DEFAULT_PRIOR_COUNT, posterior_uncertainty

N_ITEMS, TEST_SETS, SEED = 200, 2000, 20260524
U = np.eye(2)  # accuracy


def population(r: float) -> np.ndarray:
    """Joint frequencies over (true class, A's output, B's output), classes equally frequent."""
    theta = np.zeros((2, 2, 2))
    for j in range(2):
        wrong = 1 - j
        theta[j, j, j], theta[j, wrong, wrong] = 0.8, 0.1  # both right, both wrong
        theta[j, j, wrong], theta[j, wrong, j] = 0.05 * (1 + r), 0.05 * (1 - r)  # only A right, only B right
    return theta.ravel() / 2


def reported(theta: np.ndarray, rng: np.random.Generator) -> tuple[float, bool] | None:
    """One test set from ``theta``: the flip probability of its observed order, and whether
    that order is wrong for the population; None for an observed tie."""
    index = np.repeat(np.arange(8), rng.multinomial(N_ITEMS, theta))
    truth, first, second = index // 4, (index // 2) % 2, index % 2
    correct = np.array([np.sum(first == truth), np.sum(second == truth)])
    sign = np.sign(correct[0] - correct[1])
    if sign == 0:
        return None
    counts = np.array([np.bincount(o * 2 + truth, minlength=4).reshape(2, 2) for o in (first, second)], dtype=float)
    labels = ItemLabels(truth, {"A": first, "B": second})
    result = posterior_uncertainty(U, counts, ["A", "B"], [0, 1], [sign], labels=labels, samples=16, rng=rng)
    t = theta.reshape(2, 2, 2)
    population_difference = sum(t[j, j, :].sum() - t[j, :, j].sum() for j in range(2))  # A's accuracy - B's
    return float(result.flip_test[0]), bool(sign * population_difference < 0)


def row(label: str, draw_population, rng) -> str:
    results = [r for _ in range(TEST_SETS) if (r := reported(draw_population(), rng)) is not None]
    p = np.array([r[0] for r in results])
    wrong = np.array([r[1] for r in results])
    confident = p < 0.05
    k = int(confident.sum())
    if k == 0:
        return f"| {label} | {len(results)} | {100 * wrong.mean():.1f} | 0.0 | - | - |"
    rate = wrong[confident].mean()
    se = np.sqrt(max(rate * (1 - rate), 1 / k) / k)
    return (
        f"| {label} | {len(results)} | {100 * wrong.mean():.1f} | {100 * k / len(results):.1f} | "
        f"{100 * p[confident].mean():.1f} | {100 * rate:.1f} ± {100 * se:.1f} |"
    )


def main() -> None:
    rng = np.random.default_rng(SEED)
    print(f"Test sets of {N_ITEMS} items, {TEST_SETS} per row; % of the test sets that order the pair (no tie)")
    print("| population: A's accuracy - B's | test sets | order wrong, % | p < 0.05, % | mean p there, % | wrong when p < 0.05, % |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in (0.02, 0.1, 0.2, 0.4):
        theta = population(r)
        print(row(f"+{0.1 * r:.3f}", lambda theta=theta: theta, rng))
    print(row("drawn from the prior", lambda: rng.dirichlet(np.full(8, DEFAULT_PRIOR_COUNT / 8)), rng))


if __name__ == "__main__":
    main()
