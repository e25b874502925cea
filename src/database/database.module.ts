import { Global, Module } from '@nestjs/common';
import { WriteQueue } from './write-queue.js';

/** Global so that every feature shares the one WriteQueue of this process. */
@Global()
@Module({ providers: [WriteQueue], exports: [WriteQueue] })
export class DatabaseModule {}
