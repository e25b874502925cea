import { CacheModule } from '@nestjs/cache-manager';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { boundedMemoryStore } from '../common/cache/memory-store.js';
import { CatalogController } from './catalog.controller.js';
import { CatalogService } from './catalog.service.js';
import { CatalogRevision, CryptoPair } from './crypto-pair.entity.js';
import { CryptoPairRepository } from './crypto-pair.repository.js';
import { TypeOrmCryptoPairRepository } from './typeorm-crypto-pair.repository.js';

/** Cached pages kept at most; each is a few KB at most (size ≤ 100). */
const CATALOG_CACHE_ENTRIES = 5000;

@Module({
  // This cache instance belongs to the catalog alone, so invalidation may clear all of it.
  imports: [
    TypeOrmModule.forFeature([CryptoPair, CatalogRevision]),
    CacheModule.register({ stores: [boundedMemoryStore(CATALOG_CACHE_ENTRIES)] }),
  ],
  controllers: [CatalogController],
  providers: [
    CatalogService,
    { provide: CryptoPairRepository, useClass: TypeOrmCryptoPairRepository },
  ],
  exports: [CatalogService],
})
export class CatalogModule {}
