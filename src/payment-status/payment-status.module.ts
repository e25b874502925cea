import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PaymentSession, PaymentSessionTransition } from './payment-session.entity.js';
import { PaymentSessionService } from './payment-session.service.js';
import { PaymentStatusController } from './payment-status.controller.js';

@Module({
  imports: [TypeOrmModule.forFeature([PaymentSession, PaymentSessionTransition])],
  controllers: [PaymentStatusController],
  providers: [PaymentSessionService],
  exports: [PaymentSessionService],
})
export class PaymentStatusModule {}
