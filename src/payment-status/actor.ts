/**
 * Who created a payment session or made one of its transitions, as the operator sees it: a
 * merchant (init-iframe), an operator (the operator API), the customer (the checkout page), the
 * service itself (the checkout's expiry) or a seed file.
 */
export type Actor =
  | { kind: 'merchant'; id: string }
  | { kind: 'operator'; id: string; name: string }
  | { kind: 'customer' }
  | { kind: 'system' }
  | { kind: 'seed' };

export const ACTOR_KINDS = ['merchant', 'operator', 'customer', 'system', 'seed'] as const;

/** How an actor is stored: JSON text, at most 300 characters (ids and names are shorter). */
export function storedActor(actor: Actor | undefined): string | null {
  return actor === undefined ? null : JSON.stringify(actor);
}

export function actorOf(stored: string | null | undefined): Actor | null {
  if (!stored) return null;
  try {
    const actor = JSON.parse(stored) as Actor;
    return ACTOR_KINDS.includes(actor.kind) ? actor : null;
  } catch {
    return null;
  }
}
