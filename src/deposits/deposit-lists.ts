import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors/api-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { PreparedReads } from '../database/prepared-reads.js';
import { PaymentSession } from '../payment-status/payment-session.entity.js';
import type { PaymentStatus } from '../payment-status/payment-status.types.js';
import type { DepositFlag } from './deposit-rules.js';
import { Deposit, DepositAddress, DepositQuote } from './deposits.entity.js';
import type { DepositNetwork } from './networks.js';

/** What a watcher asks for: a network's addresses, a chain of it, those still watched or all. */
export interface WatchedAddressQuery {
  network: DepositNetwork;
  chainId?: number;
  state: 'watching' | 'all';
  size: number;
  cursor?: string;
}

/** An address as a watcher watches it (docs/watcher-protocol.md). */
export interface WatchedAddress {
  network: DepositNetwork;
  chainId?: number;
  address: string;
  tokenContract?: string;
  decimals: number;
  confirmations: number;
  assignedAt: string;
  sessionFinal: boolean;
}

/** What an operator asks of the deposits: flagged or not, a session's, a network's. */
export interface DepositListQuery {
  flagged?: boolean;
  validationKey?: string;
  network?: DepositNetwork;
  size: number;
  cursor?: string;
}

/** A deposit as an operator sees it. */
export interface ListedDeposit {
  id: number;
  network: DepositNetwork;
  chainId?: number;
  address: string;
  txid: string;
  index: number;
  asset: string;
  amount: string;
  confirmations: number;
  counted: boolean;
  flag?: DepositFlag;
  flaggedAmount?: string;
  validationKey: string;
  firstSeenAt: string;
  updatedAt: string;
  session: { status: PaymentStatus };
}

/** One page of a list read by cursor, and the cursor of the next page (absent on the last). */
export interface CursorPage<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * The lists of deposits: the addresses a watcher watches (in the order they were given, a page
 * after a cursor), and the deposits an operator looks at (newest first). Read on the read
 * connection, built with the query builder.
 */
@Injectable()
export class DepositLists {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reads: PreparedReads,
  ) {}

  /**
   * `watching`: addresses whose session is open, or ended less than LATE_DEPOSIT_WATCH_SECONDS
   * ago. A session's end is when it became final (SUCCESSFUL, FAILED), or, for one that did not
   * complete, when its last quote ended.
   */
  async watched(query: WatchedAddressQuery, now = Date.now()): Promise<CursorPage<WatchedAddress>> {
    const after = cursorValue(query.cursor);
    const read = this.dataSource
      .createQueryBuilder(DepositAddress, 'a')
      .select('a.id', 'id')
      .addSelect('a.network', 'network')
      .addSelect('a.chainId', 'chainId')
      .addSelect('a.address', 'address')
      .addSelect('a.tokenContract', 'tokenContract')
      .addSelect('a.decimals', 'decimals')
      .addSelect('a.confirmations', 'confirmations')
      .addSelect('a.assignedAt', 'assignedAt')
      .addSelect('s.status', 'status')
      .innerJoin(PaymentSession, 's', 's.validationKey = a.validationKey')
      .where('a.network = :network', { network: query.network })
      .andWhere('a.id > :after', { after })
      .orderBy('a.id');
    if (query.chainId !== undefined)
      read.andWhere('a.chainId = :chainId', { chainId: query.chainId });
    if (query.state === 'watching') {
      const since = now - this.config.deposits.lateDepositWatchSeconds * 1000;
      read
        .leftJoin(DepositQuote, 'q', 'q.validationKey = a.validationKey')
        .andWhere(
          "(s.status = 'PENDING' OR COALESCE(s.finalAt, q.expiresAt, a.assignedAt) >= CAST(:since AS BIGINT))",
          { since },
        );
    }
    const rows = await this.reads.rowsOf<{
      id: number | string;
      network: DepositNetwork;
      chainId: number | string | null;
      address: string;
      tokenContract: string | null;
      decimals: number | string;
      confirmations: number | string;
      assignedAt: number | string;
      status: PaymentStatus;
    }>(read, query.size + 1);
    const page = rows.slice(0, query.size);
    return {
      items: page.map((row) => ({
        network: row.network,
        ...(row.chainId === null ? {} : { chainId: Number(row.chainId) }),
        address: row.address,
        ...(row.tokenContract === null ? {} : { tokenContract: row.tokenContract }),
        decimals: Number(row.decimals),
        confirmations: Number(row.confirmations),
        assignedAt: new Date(Number(row.assignedAt)).toISOString(),
        sessionFinal: row.status !== 'PENDING',
      })),
      ...(rows.length > query.size ? { nextCursor: cursorOf(Number(page.at(-1)!.id)) } : {}),
    };
  }

  /** The deposits, newest first, a page before a cursor. */
  async deposits(query: DepositListQuery): Promise<CursorPage<ListedDeposit>> {
    const before = query.cursor === undefined ? undefined : cursorValue(query.cursor);
    const read = this.dataSource
      .createQueryBuilder(Deposit, 'd')
      .select('d.id', 'id')
      .addSelect('d.network', 'network')
      .addSelect('d.chainId', 'chainId')
      .addSelect('a.address', 'address')
      .addSelect('d.txid', 'txid')
      .addSelect('d.outputIndex', 'outputIndex')
      .addSelect('d.asset', 'asset')
      .addSelect('d.amount', 'amount')
      .addSelect('d.confirmations', 'confirmations')
      .addSelect('d.counted', 'counted')
      .addSelect('d.flag', 'flag')
      .addSelect('d.flaggedAmount', 'flaggedAmount')
      .addSelect('d.validationKey', 'validationKey')
      .addSelect('d.firstSeenAt', 'firstSeenAt')
      .addSelect('d.updatedAt', 'updatedAt')
      .addSelect('s.status', 'status')
      .innerJoin(DepositAddress, 'a', 'a.id = d.addressId')
      .innerJoin(PaymentSession, 's', 's.validationKey = d.validationKey')
      .orderBy('d.id', 'DESC');
    if (before !== undefined) read.andWhere('d.id < :before', { before });
    if (query.flagged === true) read.andWhere('d.flag IS NOT NULL');
    if (query.flagged === false) read.andWhere('d.flag IS NULL');
    if (query.validationKey !== undefined) {
      read.andWhere('d.validationKey = :validationKey', { validationKey: query.validationKey });
    }
    if (query.network !== undefined)
      read.andWhere('d.network = :network', { network: query.network });
    const rows = await this.reads.rowsOf<Record<string, unknown>>(read, query.size + 1);
    const page = rows.slice(0, query.size);
    return {
      items: page.map((row) => ({
        id: Number(row.id),
        network: row.network as DepositNetwork,
        ...(row.chainId === null ? {} : { chainId: Number(row.chainId) }),
        address: row.address as string,
        txid: row.txid as string,
        index: Number(row.outputIndex),
        asset: row.asset as string,
        amount: row.amount as string,
        confirmations: Number(row.confirmations),
        counted: row.counted === true || row.counted === 1 || row.counted === '1',
        ...(row.flag === null ? {} : { flag: row.flag as DepositFlag }),
        ...(row.flaggedAmount === null ? {} : { flaggedAmount: row.flaggedAmount as string }),
        validationKey: row.validationKey as string,
        firstSeenAt: new Date(Number(row.firstSeenAt)).toISOString(),
        updatedAt: new Date(Number(row.updatedAt)).toISOString(),
        session: { status: row.status as PaymentStatus },
      })),
      ...(rows.length > query.size ? { nextCursor: cursorOf(Number(page.at(-1)!.id)) } : {}),
    };
  }
}

/** A page's cursor: the id it ends with, as base64url JSON (opaque to clients). */
function cursorOf(id: number): string {
  return Buffer.from(JSON.stringify({ id })).toString('base64url');
}

/** The largest id a row of these lists has (their ids are 32-bit integers on PostgreSQL). */
const MAX_ROW_ID = 2_147_483_647;

/** The id a cursor names (0: from the start); a cursor this service did not make is a 400. */
function cursorValue(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const { id } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      id?: unknown;
    };
    if (Number.isSafeInteger(id) && (id as number) >= 0 && (id as number) <= MAX_ROW_ID) {
      return id as number;
    }
  } catch {
    // refused below
  }
  throw ApiError.invalidParameters([
    { field: 'cursor', message: 'must be the nextCursor of an earlier page' },
  ]);
}
