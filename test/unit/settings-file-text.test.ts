// The settings file as npm run import writes it (cli/settings-file.ts): the service's settings
// over the file's others, keys in one order whatever order the file had them in, a resources
// section only where the import found one, and the user's prerendered_filters kept where they
// still name a filter.

import { describe, expect, it } from 'vitest';
import { settingsFileText } from '../../scripts/cli/settings-file.ts';

const parsedKeys = (text: string) => Object.keys(JSON.parse(text));

describe('settingsFileText', () => {
  it('writes the base URL and page size alone for a new file, as before', () => {
    expect(settingsFileText({ baseUrl: 'https://api.example.com', pageSize: 10 })).toBe(
      '{\n  "baseUrl": "https://api.example.com",\n  "pageSize": 10\n}\n',
    );
  });

  it("keeps the file's other settings, in a fixed order, and drops a resources section the service has no more", () => {
    const kept = {
      resources: { company: { search_fields: ['name'] } },
      reference: true,
      targets: ['nginx'],
      pageSize: 3,
      $schema: './schemas/settings.schema.json',
    };
    const text = settingsFileText({ baseUrl: 'https://api.example.com', pageSize: 7 }, kept);
    expect(parsedKeys(text)).toEqual(['$schema', 'baseUrl', 'pageSize', 'targets', 'reference']);
    expect(JSON.parse(text).pageSize).toBe(7);
    // The same settings in another order give the same bytes.
    const reordered = Object.fromEntries(Object.entries(kept).reverse());
    expect(settingsFileText({ baseUrl: 'https://api.example.com', pageSize: 7 }, reordered)).toBe(text);
  });

  it('keeps prerendered_filters that the found filters still name', () => {
    const found = { company: { filterset_fields: ['id', 'city'], search_fields: ['name'] } };
    const kept = {
      resources: { company: { filterset_fields: ['city', 'phone'], prerendered_filters: ['city', 'phone'] } },
    };
    const text = settingsFileText({ baseUrl: 'https://api.example.com', pageSize: 10, resources: found }, kept);
    expect(JSON.parse(text).resources).toEqual({
      company: { filterset_fields: ['id', 'city'], search_fields: ['name'], prerendered_filters: ['city'] },
    });
  });
});
