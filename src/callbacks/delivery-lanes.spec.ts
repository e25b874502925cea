import { DeliveryLanes, type DeliveryLimits } from './delivery-lanes.js';

const limits: DeliveryLimits = {
  inFlight: 4,
  perMerchant: 2,
  slowInFlight: 2,
  total: 8,
  slowAfterMs: 1000,
  slowForMs: 60_000,
  slowMerchants: 3,
};
const due = (merchantId: string, n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ id: `${merchantId}-${from + i}`, merchantId }));

/** Starts what the plan picks of `offered`; the ids started. */
function claim(lanes: DeliveryLanes, offered: { id: string; merchantId: string }[], now: number) {
  const plan = lanes.plan(now);
  const picked = plan.pick(offered.filter((c) => !plan.exclude.includes(c.merchantId)));
  for (const id of picked) lanes.started(id, offered.find((c) => c.id === id)!.merchantId, now);
  return { plan, picked };
}

describe('DeliveryLanes', () => {
  it('gives one merchant at most its share, and the rest to the others', () => {
    const lanes = new DeliveryLanes(limits);
    const { picked } = claim(lanes, [...due('a', 5), ...due('b', 1)], 0);
    expect(picked).toEqual(['a-0', 'a-1', 'b-0']);
    expect(lanes.plan(0).exclude).toEqual(['a']);
  });

  it("moves a hanging merchant's attempts out of the fast places after slowAfterMs", () => {
    const lanes = new DeliveryLanes({ ...limits, slowMerchants: 10 });
    const slowOnes = [...due('a', 1), ...due('b', 1), ...due('c', 1), ...due('d', 1)];
    expect(claim(lanes, slowOnes, 0).picked).toHaveLength(4);
    expect(lanes.plan(500).limit).toBe(2); // only the slow places were free
    // Past a second every one of them is slow: the fast places are free again, and their
    // merchants are left out while the slow places are taken.
    const plan = lanes.plan(1001);
    expect(plan.limit).toBe(4);
    expect(plan.exclude.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(plan.pick([...due('e', 1)])).toEqual(['e-0']);
  });

  it('lets a slow merchant in only within the slow places, and forgets it once it answers in time', () => {
    const lanes = new DeliveryLanes(limits);
    lanes.started('a-0', 'a', 0);
    lanes.ended('a-0', { durationMs: 10_000, timedOut: true }, 10_000);
    let plan = lanes.plan(10_000);
    expect(plan.pick(due('a', 3))).toEqual(['a-0', 'a-1']);
    lanes.started('a-0', 'a', 10_000);
    lanes.started('a-1', 'a', 10_000);
    expect(lanes.plan(10_000).exclude).toContain('a');
    lanes.ended('a-0', { durationMs: 50, timedOut: false }, 10_050);
    lanes.ended('a-1', { durationMs: 50, timedOut: false }, 10_050);
    plan = lanes.plan(10_050);
    expect(plan.exclude).toEqual([]);
    expect(plan.pick([...due('a', 2), ...due('b', 2)])).toEqual(['a-0', 'a-1', 'b-0', 'b-1']);
  });

  it('keeps the same answer when asked again, and never more than the total', () => {
    const lanes = new DeliveryLanes({ ...limits, total: 3 });
    const plan = lanes.plan(0);
    const offered = [...due('a', 1), ...due('b', 1), ...due('c', 1), ...due('d', 1)];
    expect(plan.pick(offered)).toEqual(['a-0', 'b-0', 'c-0']);
    expect(plan.pick(offered)).toEqual(['a-0', 'b-0', 'c-0']);
  });

  it('remembers at most slowMerchants slow merchants, forgetting the oldest', () => {
    const lanes = new DeliveryLanes({ ...limits, slowInFlight: 0 });
    for (const merchant of ['a', 'b', 'c', 'd']) {
      lanes.started(`${merchant}-0`, merchant, 0);
      lanes.ended(`${merchant}-0`, { durationMs: 5000, timedOut: false }, 5000);
    }
    expect(lanes.plan(5000).exclude.sort()).toEqual(['b', 'c', 'd']);
    // And each for slowForMs only.
    expect(lanes.plan(65_000).exclude).toEqual([]);
  });
});
