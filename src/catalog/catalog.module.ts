import { CacheModule } from '@nestjs/cache-manager';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogController } from './catalog.controller.js';
import { CatalogService } from './catalog.service.js';
import { CatalogRevision, CryptoPair } from './crypto-pair.entity.js';

@Module({
  // This cache instance belongs to the catalog alone, so invalidation may clear all of it.
  imports: [TypeOrmModule.forFeature([CryptoPair, CatalogRevision]), CacheModule.register()],
  controllers: [CatalogController],
  providers: [CatalogService],
  exports: [CatalogService],
})
export class CatalogModule {}
