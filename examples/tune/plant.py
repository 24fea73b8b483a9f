#!/usr/bin/env python3
"""A simulated plant to tune (docs/quickstart.md): a PI controller with gains
kp and ki closing the loop around a second-order process with dead time,
1.5 / ((2s + 1)(0.5s + 1)) e^(-0.3s), after a unit step of the setpoint.

    python3 plant.py KP KI     prints  settle_time=S overshoot=O

settle_time: the last time (s) the output is more than 2 % away from the
setpoint, within 200 s; overshoot: the output's peak above the setpoint
(negative while it stays below), 5 for a loop that went unstable. The same
plant as study/tune_test.go's, with 1 % noise on the settling time and 0.002
on the overshoot, as a measurement would have. PLANT_SEED=n in the
environment makes the noise repeatable: each measurement's draw is seeded
by n, the gains and PLANT_TRIAL (tune.sh sets it to the trial's number),
so that a seeded run's trials still get noise of their own rather than
the same draw every time.
"""
import os
import random
import sys


def simulate(kp, ki, dt=0.005, t_end=200.0):
    delay = int(0.3 / dt)
    buf = [0.0] * (delay + 1)
    x1 = x2 = integ = peak = settle = 0.0
    for k in range(int(t_end / dt)):
        y = x2
        e = 1 - y
        integ += e * dt
        buf[k % (delay + 1)] = kp * e + ki * integ
        ud = buf[(k + 1) % (delay + 1)]
        x1 += dt * (1.5 * ud - x1) / 2.0
        x2 += dt * (x1 - x2) / 0.5
        peak = max(peak, y)
        if abs(y - 1) > 0.02:
            settle = (k + 1) * dt
        if abs(y) > 6:
            return t_end, 5.0
    return settle, min(peak - 1, 5.0)


if __name__ == "__main__":
    kp, ki = float(sys.argv[1]), float(sys.argv[2])
    seed = os.environ.get("PLANT_SEED")
    if seed is not None:
        seed = f"{seed}:{kp!r}:{ki!r}:{os.environ.get('PLANT_TRIAL', '')}"
    rng = random.Random(seed)
    s, o = simulate(kp, ki)
    print(f"settle_time={s * (1 + 0.01 * rng.gauss(0, 1)):.4f} overshoot={o + 0.002 * rng.gauss(0, 1):.5f}")
