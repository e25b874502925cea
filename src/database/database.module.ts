import { Global, Module } from '@nestjs/common';
import { HotReads } from './hot-reads.js';
import { WriteQueue } from './write-queue.js';

/** Global so that every feature shares the one WriteQueue and the prepared reads. */
@Global()
@Module({ providers: [WriteQueue, HotReads], exports: [WriteQueue, HotReads] })
export class DatabaseModule {}
