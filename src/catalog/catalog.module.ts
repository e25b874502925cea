import { CacheModule } from '@nestjs/cache-manager';
import { Module } from '@nestjs/common';
import { boundedMemoryStore } from '../common/cache/memory-store.js';
import { CatalogController } from './catalog.controller.js';
import { CatalogService } from './catalog.service.js';
import { CryptoPairRepository } from './crypto-pair.repository.js';
import { TypeOrmCryptoPairRepository } from './typeorm-crypto-pair.repository.js';

/** Memory the cached pages may take (a page of 100 pairs is about 30 KB as kept). */
const CATALOG_CACHE_BYTES = 16 * 1024 * 1024;

@Module({
  // This cache instance belongs to the catalog alone, so invalidation may clear all of it.
  imports: [CacheModule.register({ stores: [boundedMemoryStore(CATALOG_CACHE_BYTES)] })],
  controllers: [CatalogController],
  providers: [
    CatalogService,
    { provide: CryptoPairRepository, useClass: TypeOrmCryptoPairRepository },
  ],
  exports: [CatalogService],
})
export class CatalogModule {}
