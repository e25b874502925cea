import { validatePlain } from '../../common/validation.js';
import { CreateOperatorDto } from './operator.dto.js';

describe('CreateOperatorDto', () => {
  const nameErrors = async (body: object) =>
    (await validatePlain(CreateOperatorDto, { role: 'viewer', ...body })).errors;

  it('takes a name of the allowed characters', async () => {
    expect(await nameErrors({ name: 'alice.ops-1' })).toEqual([]);
  });

  it.each(['root', 'ROOT', 'System', 'unknown'])('refuses the reserved name %s', async (name) => {
    expect(await nameErrors({ name })).toEqual([
      { field: 'name', message: expect.stringMatching(/^must not be root, system, unknown/) },
    ]);
  });

  it('tells a name left out that it is required, and what a name must be', async () => {
    expect(await nameErrors({})).toEqual([
      {
        field: 'name',
        message: expect.stringMatching(/^is required: it must be 1 to 64 of the characters/),
      },
    ]);
  });

  it.each([
    ['not a string', { name: 12 }],
    ['empty', { name: '' }],
    ['of other characters', { name: 'al!ce' }],
  ])('tells a name %s what a name must be', async (_what, body) => {
    expect(await nameErrors(body)).toEqual([
      { field: 'name', message: expect.stringMatching(/^must be 1 to 64 of the characters/) },
    ]);
  });
});
