import type { ArgumentMetadata } from '@nestjs/common';
import { CatalogQueryDto } from '../catalog/dto/catalog-query.dto.js';
import { ApiError } from './errors/api-error.js';
import { createValidationPipe } from './validation.js';

const QUERY: ArgumentMetadata = { type: 'query', metatype: CatalogQueryDto, data: undefined };

describe('validation pipe', () => {
  it('answers a query it accepted before with the same validated, frozen DTO', async () => {
    const pipe = createValidationPipe();
    const first = (await pipe.transform({ countryCode: 'ie', size: '5' }, QUERY)) as object;
    const second = await pipe.transform({ countryCode: 'ie', size: '5' }, QUERY);
    expect(first).toBeInstanceOf(CatalogQueryDto);
    expect(first).toMatchObject({ countryCode: 'IE', size: 5 });
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('keeps different queries apart', async () => {
    const pipe = createValidationPipe();
    const ie = await pipe.transform({ countryCode: 'ie' }, QUERY);
    const de = await pipe.transform({ countryCode: 'de' }, QUERY);
    expect(ie).toMatchObject({ countryCode: 'IE' });
    expect(de).toMatchObject({ countryCode: 'DE' });
  });

  it('refuses a bad query every time it comes back', async () => {
    const pipe = createValidationPipe();
    for (let i = 0; i < 2; i++) {
      await expect(pipe.transform({ countryCode: 'IRL' }, QUERY)).rejects.toBeInstanceOf(ApiError);
    }
  });

  it('does not remember bodies: each is validated into its own object', async () => {
    const pipe = createValidationPipe();
    const body: ArgumentMetadata = { type: 'body', metatype: CatalogQueryDto, data: undefined };
    const first = await pipe.transform({ countryCode: 'ie' }, body);
    const second = await pipe.transform({ countryCode: 'ie' }, body);
    expect(second).not.toBe(first);
  });
});
