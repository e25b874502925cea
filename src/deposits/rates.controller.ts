import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentOperatorCall, type OperatorCall } from '../access/operator-call.js';
import type { Listing } from '../common/http/envelope.js';
import { ValidBody, ValidParams } from '../common/validation.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { RATE_EXAMPLES, RateDto, RateInputDto, RateListDto, RateParams } from './dto/rate.dto.js';
import { RateService } from './rates.service.js';

const RATES_PATH = 'admin/rates';

@ApiTags('Operator: deposits')
@Controller()
export class RatesController {
  constructor(private readonly rates: RateService) {}

  @Endpoint({
    method: 'PUT',
    path: `${RATES_PATH}/:currencyCode`,
    operationId: 'putRate',
    summary: 'Put the price of one unit of an asset in a fiat currency',
    description:
      'Replaces the rate of the asset in that fiat. It quotes for RATE_MAX_AGE_SECONDS (300 by ' +
      'default), then is stale until put again: a price feed puts it more often than that. A ' +
      "checkout quotes an asset only at a fresh rate in its money's currency: money ÷ price, " +
      "rounded up to the asset's decimals. Audited.",
    access: 'operator',
    role: 'catalog',
    requestBody: { type: RateInputDto, examples: RATE_EXAMPLES },
    responses: [{ status: 200, type: RateDto, description: 'The rate now.' }],
    body: true,
    errors: ['INVALID_PARAMETER'],
  })
  put(
    @ValidParams() params: RateParams,
    @ValidBody() input: RateInputDto,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<RateDto> {
    return this.rates.put(params.currencyCode, input.fiat, input.price, call);
  }

  @Endpoint({
    method: 'GET',
    path: RATES_PATH,
    operationId: 'listRates',
    summary: 'Every rate, with its age and whether it is stale',
    description: 'By asset, then fiat currency.',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    responses: [{ status: 200, type: RateListDto }],
    errors: [],
  })
  async list(): Promise<Listing<RateDto>> {
    return { items: await this.rates.list() };
  }
}
