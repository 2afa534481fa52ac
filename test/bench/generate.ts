// The benchmark's synthetic catalogue: a large, valid data/ folder in the source format, made
// from a seeded PRNG so every run writes the same bytes (the printed digest shows it).
//
// How the catalogue is kept on disk, as a real one would be:
//   company/companies-NNN.json          100 files of 1,000 records (an export split in chunks)
//   event/<year>.json                   one array per year of start_date, in date order
//   virtualfair/<slug>.json             one record (an object, not an array) per fair: edited by hand
//   virtualbooth-texture/<library>/textures-NNN.json   200 files of 100, in 8 library folders
// Both file shapes (array and single object) and nested folders are thus loaded.

import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Float, type Json } from '../../scripts/contract/json.ts';
import { prettyWithFloats } from '../../scripts/migrate/convert.ts';

export const COUNTS = { companies: 100_000, events: 10_000, fairs: 1_000, textures: 20_000 } as const;
/** How many records of each resource to make: the bench's COUNTS, or fewer for a test's catalogue. */
export type Counts = Readonly<Record<keyof typeof COUNTS, number>>;
const COMPANIES_PER_FILE = 1_000;
const TEXTURES_PER_FILE = 100;
const SEED = 0x5eed_2024;

export interface Generated {
  /** Absolute paths of the source files, in the order they were written. */
  files: string[];
  bytes: number;
  records: number;
  /** sha256 of every file's path and bytes: equal across runs when generation is deterministic. */
  digest: string;
  /** How each resource is split into files, for the report. */
  layout: string[];
}

// mulberry32: tiny, fast, and good enough to pick names; Math.random cannot be seeded.
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const chance = (p: number) => next() < p;
  const digits = (n: number) => Array.from({ length: n }, () => int(0, 9)).join('');
  const hex = (n: number) => Array.from({ length: n }, () => int(0, 15).toString(16)).join('');
  /** Distinct items, in the order drawn. */
  const some = <T>(items: readonly T[], n: number): T[] => {
    const chosen = new Set<T>();
    while (chosen.size < Math.min(n, items.length)) chosen.add(pick(items));
    return [...chosen];
  };
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
  return { next, int, pick, chance, digits, hex, some, uuid };
}
type Rng = ReturnType<typeof prng>;

/** A host-name-safe form of a name; empty for scripts with no Latin letters. */
function slugify(name: string): string {
  const latin = name
    .replace(/ß/g, 'ss')
    .replace(/[łŁ]/g, 'l')
    .replace(/[øØ]/g, 'o')
    .replace(/[æÆ]/g, 'ae')
    .replace(/ı/g, 'i')
    .normalize('NFD')
    .replace(/\p{M}/gu, '');
  return latin
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

interface Country {
  name: string;
  weight: number;
  cities: ReadonlyArray<readonly [city: string, zip: string]>;
  streets: readonly string[];
  company: (r: Rng) => string;
  phone: (r: Rng) => string;
}

// biome-ignore format: a table reads best packed
const COUNTRIES: Country[] = [
  {
    name: 'Germany', weight: 30,
    cities: [['Remscheid', '42853'], ['Chemnitz', '09111'], ['Frankfurt am Main', '60311'], ['Stuttgart', '70173'],
      ['Düsseldorf', '40213'], ['Köln', '50667'], ['München', '80331'], ['Hamburg', '20095'], ['Solingen', '42651'],
      ['Görlitz', '02826'], ['Nürnberg', '90402']],
    streets: ['Königsallee', 'Werkstraße', 'Hansaallee', 'Industriestraße', 'Am Schäferhof', 'Gießereiweg',
      'Hauptstraße', 'Zur Hütte'],
    company: (r) => `${r.pick(['Vogelsang', 'Thießen', 'Müller', 'Schäfer', 'Weiß', 'Krämer', 'Böhm', 'Köhler', 'Süßmann', 'Jäger', '4M', 'Rheinmetallbau', 'Großkopf', 'Ölschläger', 'Metallwerk "Nord"', 'ebm'])} ${r.pick(['Oberflächentechnik', 'Lasertechnik', 'Präzisionsteile', 'Fördertechnik', 'Maschinenbau', 'Werkzeugbau', 'Blechbearbeitung', 'Schweißtechnik', 'Gießerei', 'Antriebstechnik', 'Industrietechnik'])} ${r.pick(['GmbH', 'GmbH', 'AG', 'GmbH & Co. KG', 'e.K.', 'KG'])}`,
    phone: (r) =>
      r.chance(0.5)
        ? `0${r.int(2, 9)}${r.digits(3)}/${r.digits(5)}`
        : `+49 (0)${r.int(2, 9)}${r.digits(2)} ${r.digits(6)}`,
  },
  {
    name: 'Poland', weight: 8,
    cities: [['Łódź', '90-001'], ['Poznań', '60-101'], ['Kraków', '30-001'], ['Gdańsk', '80-001'],
      ['Wrocław', '50-001']],
    streets: ['ul. Piotrkowska', 'ul. Świętokrzyska', 'al. Jana Pawła II', 'ul. Żeromskiego'],
    company: (r) => `${r.pick(['Łódzkie', 'Poznańskie', 'Śląskie', 'Wielkopolskie', 'Gdańskie', 'Małopolskie'])} ${r.pick(['Zakłady Metalowe', 'Narzędzia', 'Odlewnie', 'Konstrukcje Stalowe', 'Spawalnictwo'])} ${r.pick(['Sp. z o.o.', 'S.A.', 'Sp.j.'])}`,
    phone: (r) => `+48 ${r.digits(2)} ${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
  },
  {
    name: 'United Kingdom', weight: 8,
    cities: [['Manchester', 'M1 1AE'], ['Birmingham', 'B1 1AA'], ['London', 'EC1A 1BB'], ['Sheffield', 'S1 2HE']],
    streets: ['Foundry Lane', 'Victoria Works', 'Canal Street', 'Mill Road'],
    company: (r) => `${r.pick(['Black Country', 'Sheffield', 'Pennine', 'Albion', 'Crown', '247', "O'Brien"])} ${r.pick(['Tools', 'Fasteners', 'Steel', 'Engineering', 'Castings', 'Precision'])} ${r.pick(['Ltd', 'Ltd.', 'plc', '& Sons Ltd'])}`,
    phone: (r) => `0${r.int(113, 161)} ${r.digits(3)} ${r.digits(4)}`,
  },
  {
    name: 'Switzerland', weight: 5,
    cities: [['Zürich', 'CH-8005'], ['Biel/Bienne', 'CH-2502'], ['Genève', 'CH-1201'], ['Basel', 'CH-4051']],
    streets: ['Güterstrasse', 'Bahnhofstrasse', 'Rue du Rhône', 'Hardstrasse'],
    company: (r) => `${r.pick(['Ammann & Frey', 'Micronex', 'Décolletage', 'Helvetia', 'Jura'])} ${r.pick(['Präzision', 'Mikrotechnik', 'Horlogerie', 'Usinage'])} ${r.pick(['SA', 'AG', 'Sàrl'])}`,
    phone: (r) => `+41 ${r.digits(2)} ${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
  },
  {
    name: 'China', weight: 8,
    cities: [['Shanghai', '200000'], ['Shenzhen', '518000'], ['苏州', '215000'], ['Ningbo', '315000']],
    streets: ['No. 88 Huanghai Road', 'Jinqiao Road', '工业园区星湖街', 'Binhai Avenue'],
    company: (r) =>
      r.chance(0.3)
        ? `${r.pick(['苏州', '宁波', '深圳', '上海'])}${r.pick(['精密', '华达', '恒达', '金属'])}${r.pick(['机械', '模具', '五金'])}有限公司`
        : `${r.pick(['Zhejiang', 'Jiangsu', 'Ningbo', 'Shenzhen'])} ${r.pick(['Hengda', 'Huada', 'Jinyu', 'Xinlong'])} ${r.pick(['Machinery', 'Hardware', 'Mould', 'Metal Products'])} Co., Ltd.`,
    phone: (r) => `+86 ${r.digits(2)} ${r.digits(4)} ${r.digits(4)}`,
  },
  {
    name: 'Japan', weight: 3,
    cities: [['東京', '100-0001'], ['Osaka', '530-0001'], ['Nagoya', '450-0002']],
    streets: ['丸の内', 'Chuo-ku 2-chome', 'Minato-ku'],
    company: (r) =>
      r.chance(0.5)
        ? `株式会社${r.pick(['タナカ', 'スズキ', 'ヤマモト'])}${r.pick(['精機', '工業', '製作所'])}`
        : `${r.pick(['Tanaka', 'Suzuki', 'Yamamoto'])} ${r.pick(['Seiki', 'Kogyo', 'Seisakusho'])} Co., Ltd.`,
    phone: (r) => `+81 ${r.digits(2)}-${r.digits(4)}-${r.digits(4)}`,
  },
  {
    name: 'Austria', weight: 4,
    cities: [['Wien', 'A-1010'], ['Graz', 'A-8010'], ['Linz', 'A-4020']],
    streets: ['Industriezeile', 'Mariahilfer Straße', 'Grazer Straße'],
    company: (r) => `${r.pick(['Hofbauer', 'Pöttinger', 'Wögerer'])} ${r.pick(['Fördertechnik', 'Stahlbau', 'Anlagenbau'])} ${r.pick(['Ges.m.b.H.', 'GmbH'])}`,
    phone: (r) => `+43 ${r.int(1, 7)} ${r.digits(6)}`,
  },
  {
    name: 'Italy', weight: 6,
    cities: [['Torino', 'I-10121'], ['Milano', 'I-20121'], ['Brescia', 'I-25121']],
    streets: ['Via Emilia', 'Corso Francia', 'Via dell’Industria'],
    company: (r) => `${r.pick(['Ferraresi', 'Officine Lombarde', 'Fonderia Bresciana', 'Pressofusione'])} ${r.pick(['Presse', 'Meccanica', 'Acciai'])} ${r.pick(['S.r.l.', 'S.p.A.'])}`,
    phone: (r) => `+39 0${r.digits(2)} ${r.digits(7)}`,
  },
  {
    name: 'United States', weight: 6,
    cities: [['Detroit', '48201'], ['Charlotte', '28202'], ['Houston', '77002'], ['Cleveland', '44113']],
    streets: ['Woodward Avenue', 'Industrial Pkwy', 'Main Street'],
    company: (r) => `${r.pick(['Great Lakes', 'Lone Star', 'Motor City', 'Buckeye'])} ${r.pick(['Tooling', 'Fabrication', 'Automation', 'Forge'])} ${r.pick(['Inc.', 'LLC', 'Corp.'])}`,
    phone: (r) => `+1 (${r.int(200, 989)}) ${r.digits(3)}-${r.digits(4)}`,
  },
  {
    name: 'France', weight: 4,
    cities: [['Lyon', '69001'], ['Saint-Étienne', '42000'], ['Strasbourg', '67000']],
    streets: ['Rue de la République', 'Avenue Jean Jaurès', 'Rue des Forges'],
    company: (r) => `${r.pick(['Aciéries de', 'Forges de', 'Mécanique de'])} ${r.pick(['Saint-Étienne', 'Lorraine', 'l’Isère'])} ${r.pick(['SAS', 'SA', 'SARL'])}`,
    phone: (r) => `+33 ${r.int(1, 9)} ${r.digits(2)} ${r.digits(2)} ${r.digits(2)} ${r.digits(2)}`,
  },
  {
    name: 'Turkey', weight: 3,
    cities: [['İstanbul', '34000'], ['Ankara', '06000'], ['Bursa', '16000']],
    streets: ['Organize Sanayi Bölgesi', 'Atatürk Cad.', 'İkitelli OSB'],
    company: (r) => `${r.pick(['Öztürk', 'Yılmaz', 'Çelik'])} ${r.pick(['Makina', 'Döküm', 'Kalıp'])} San. ve Tic. A.Ş.`,
    phone: (r) => `+90 ${r.digits(3)} ${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
  },
  {
    name: 'Greece', weight: 1,
    cities: [['Θεσσαλονίκη', '546 25'], ['Αθήνα', '105 57']],
    streets: ['Οδός Εγνατίας', 'Λεωφόρος Κηφισίας'],
    company: (r) => `${r.pick(['Αφοί Παπαδόπουλοι', 'Μεταλλουργία Βορείου Ελλάδος'])} ${r.pick(['Α.Ε.', 'Ε.Π.Ε.'])}`,
    phone: (r) => `+30 2${r.digits(2)} ${r.digits(3)} ${r.digits(4)}`,
  },
  {
    name: 'Sweden', weight: 2,
    cities: [['Göteborg', '411 01'], ['Uppsala', '753 10'], ['Västerås', '722 11']],
    streets: ['Sveavägen', 'Industrigatan', 'Hamngatan'],
    company: (r) => `${r.pick(['Göteborgs', 'Västerås', 'Norrlands'])} ${r.pick(['Stålverk', 'Verktyg', 'Mekaniska Verkstad'])} AB`,
    phone: (r) => `+46 ${r.digits(2)}-${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
  },
  {
    name: 'Denmark', weight: 1,
    cities: [['København', '1050'], ['Aarhus', '8000']],
    streets: ['Østergade', 'Værkstedvej'],
    company: (r) => `${r.pick(['Ørsted', 'Søndergaard', 'Æbelø'])} ${r.pick(['Maskinfabrik', 'Stålindustri'])} A/S`,
    phone: (r) => `+45 ${r.digits(2)} ${r.digits(2)} ${r.digits(2)} ${r.digits(2)}`,
  },
  {
    name: 'Czech Republic', weight: 2,
    cities: [['Plzeň', '301 00'], ['Brno', '602 00'], ['Ostrava', '702 00']],
    streets: ['Průmyslová', 'Náměstí Míru'],
    company: (r) => `${r.pick(['Strojírny', 'Slévárna', 'Kovárna'])} ${r.pick(['Plzeň', 'Třinec', 'Brno'])} ${r.pick(['a.s.', 's.r.o.'])}`,
    phone: (r) => `+420 ${r.digits(3)} ${r.digits(3)} ${r.digits(3)}`,
  },
  {
    name: 'India', weight: 3,
    cities: [['Chennai', '600001'], ['Pune', '411001'], ['Coimbatore', '641001']],
    streets: ['Ambattur Industrial Estate', 'MIDC Bhosari', 'Avinashi Road'],
    company: (r) => `${r.pick(['Chennai', 'Deccan', 'Kaveri'])} ${r.pick(['Precision', 'Forgings', 'Castings'])} Pvt. Ltd.`,
    phone: (r) => `+91 ${r.digits(2)} ${r.digits(4)} ${r.digits(4)}`,
  },
  {
    name: 'Brazil', weight: 2,
    cities: [['Joinville', '89201-000'], ['São Paulo', '01000-000']],
    streets: ['Rua das Indústrias', 'Avenida Paulista'],
    company: (r) => `${r.pick(['Metalúrgica', 'Fundição', 'Usinagem'])} ${r.pick(['Joinville', 'Paulista', 'São Bento'])} Ltda.`,
    phone: (r) => `+55 ${r.digits(2)} ${r.digits(4)}-${r.digits(4)}`,
  },
  {
    name: 'Spain', weight: 2,
    cities: [['Bilbao', '48001'], ['Zaragoza', '50001']],
    streets: ['Calle de la Industria', 'Polígono Industrial Malpica'],
    company: (r) => `${r.pick(['Fundiciones', 'Talleres', 'Aceros'])} ${r.pick(['Añón', 'Ibáñez', 'del Norte'])} S.L.`,
    phone: (r) => `+34 9${r.digits(2)} ${r.digits(3)} ${r.digits(3)}`,
  },
  {
    name: 'Netherlands', weight: 2,
    cities: [['Eindhoven', '5611 AA'], ['Rotterdam', '3011 AA']],
    streets: ['Industrieweg', 'Havenstraat'],
    company: (r) => `${r.pick(['Van der Berg', "'t Hooft", 'De Vries'])} ${r.pick(['Machinebouw', 'Metaaltechniek'])} B.V.`,
    phone: (r) => `+31 ${r.digits(2)} ${r.digits(3)} ${r.digits(4)}`,
  },
];
const COUNTRY_WEIGHTS = COUNTRIES.reduce((sum, c) => sum + c.weight, 0);

function pickCountry(r: Rng): Country {
  let n = r.next() * COUNTRY_WEIGHTS;
  for (const c of COUNTRIES) {
    n -= c.weight;
    if (n < 0) return c;
  }
  return COUNTRIES[0] as Country;
}

// biome-ignore format: a list reads best packed
const TAGS = ['Hydraulics & Pneumatics', 'CAD/CAM Software', 'Trade Press (Media)', 'Welding & Cutting',
  'Press Technology', 'Measuring & Testing', 'Machine Tools', 'Industrial Safety', 'Logistics & Intralogistics',
  'Surface Technology', 'Automation/Robotics', 'Tube & Pipe', 'Tools/Dies/Moulds', 'Medical Technology', 'Oil & Gas',
  'Metal & Steel', 'Foundry', 'Fasteners', 'Research & Education', 'Services (Consulting)',
  'Additive Manufacturing (3D Printing)', 'Sheet Metal Working', 'Drive Technology', 'Plastics & Rubber',
  'Electronics/Electrical Engineering', 'Software (ERP/MES)', 'Compressed Air', 'Lubricants & Coolants',
  'Bearings & Linear Technology', 'Energy (Wind/Solar)', 'Oberflächentechnik', 'Sécurité industrielle'];

/** Ids as a database hands them out after deletions: increasing, with gaps. */
function ids(r: Rng, n: number, maxGap: number): number[] {
  let id = r.int(1, maxGap);
  return Array.from({ length: n }, () => (id += r.int(1, maxGap)));
}

function nullable<T>(r: Rng, pNull: number, pEmpty: number, make: () => T): T | '' | null {
  const n = r.next();
  if (n < pNull) return null;
  if (n < pNull + pEmpty) return '';
  return make();
}

function company(r: Rng, id: number): Json {
  const c = pickCountry(r);
  const [city, zip] = r.pick(c.cities);
  let name = c.company(r);
  // Hand-typed names: a stray trailing space or a lower-case brand sorts differently.
  if (r.chance(0.002)) name += ' ';
  if (r.chance(0.01)) name = name.toLowerCase();
  const domain =
    slugify(name.replace(/\b(gmbh|ag|kg|ltd|inc|llc|sa|s\.?r\.?l|co\.?,? ltd\.?)\b.*$/i, '')) || `company-${id}`;
  return {
    id,
    name,
    street: r.chance(0.02) ? '' : `${r.pick(c.streets)} ${r.int(1, 240)}`,
    zip_code: r.chance(0.01) ? '' : zip,
    city: r.chance(0.01) ? '' : city,
    country_name: c.name,
    phone: nullable(r, 0.1, 0.02, () => c.phone(r)),
    fax: nullable(r, 0.5, 0.01, () => c.phone(r)),
    e_mail: nullable(
      r,
      0.08,
      0.1,
      () => `${r.pick(['info', 'sales', 'kontakt', 'contact', 'export'])}@${domain}.example.com`,
    ),
    platform_plus_status: r.chance(0.2),
    website: nullable(
      r,
      0.15,
      0.08,
      () => `${r.pick(['https://www.', 'http://www.', 'https://'])}${domain}.example.com${r.pick(['', '/', '/en/'])}`,
    ),
    logo: r.chance(0.55)
      ? `https://media.example.com/logos/${domain}-${id}.${r.pick(['png', 'png', 'jpg', 'svg'])}`
      : null,
    tags: r.chance(0.3) ? null : r.some(TAGS, r.int(1, 6)).join(','),
    vf_plus_status: r.chance(0.15),
  };
}

// biome-ignore format: a list reads best packed
const EVENT_SERIES = ['Welding Week', 'Targi Łódzkie', 'Hydraulik-Kolloquium', 'Fachmesse Öl & Gas',
  'Industrial Safety Day', 'Fiera Meccanica', 'İstanbul Machinery Days', 'Packaging Innovations',
  'Nordic Automation Fair', 'Blechexpo', 'Schweißen & Schneiden', 'Metalurgia Kielce', 'Salon de la Sous-Traitance',
  'Göteborg Verktygsmässa', 'Strojírenský veletrh Brno', 'Έκθεση Μηχανημάτων', '上海国际工业博览会', '東京精密機械展',
  'Surface Technology Forum', 'Additive Days (AM/3D)', 'Tube & Pipe Summit', 'Foundry Talks', 'Press Tech Conference',
  'Robotics/Automation Expo', 'Feira Metalúrgica', 'Intralogistik-Tage', 'Messtechnik Praxis', 'Präzisionstage Biel',
  'Fastener Fair', 'Mould & Die Days'];
const EVENT_EDITIONS = ['', '', '', ' Nord', ' Süd', ' International', ' Digital', ' (Online)', ' Spring', ' Autumn'];

/** A date string; days past a month's end roll over, so leap days and month ends appear. */
function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function events(r: Rng, count: number): Json[] {
  const slugs = new Set<string>();
  return ids(r, count, 3).map((id) => {
    const name = `${r.pick(EVENT_SERIES)}${r.pick(EVENT_EDITIONS)}`;
    const start = new Date(Date.UTC(r.int(2000, 2027), r.int(0, 11), r.int(1, 31)));
    const end = new Date(start.getTime() + r.int(0, 6) * 86_400_000);
    let slug = `${slugify(name) || `event-${id}`}-${start.getUTCFullYear()}`;
    for (let n = 2; slugs.has(slug); n++) slug = `${slug.replace(/--\d+$/, '')}--${n}`;
    slugs.add(slug);
    const code = (slugify(name).replace(/-/g, '').toUpperCase() || 'EVT').slice(0, 3) + r.int(0, 9);
    return {
      id,
      name,
      slug,
      short_code: nullable(r, 0.04, 0.01, () => code),
      start_date: isoDate(start),
      end_date: isoDate(end),
      logo: r.chance(0.08) ? null : `/media/events/${slug}.${r.pick(['png', 'png', 'svg'])}`,
      logo_bg_color: r.chance(0.25) ? null : `#${r.chance(0.05) ? r.hex(6).toUpperCase() : r.hex(6)}`,
    };
  });
}

const TILE_PATTERNS = ['{z}/{x}/{y}', '{z}/{y}/{x}', '{z}/{x}-{y}', 'tiles/{z}/{x}/{y}@2x', '{z}_{x}_{y}'];
const FACTORS = [null, new Float(2), new Float(4.5), new Float(1.25), new Float(3), new Float(0.5), new Float(12)];

function fair(r: Rng, id: number, name: string, slug: string, eventIds: readonly number[]): Json {
  const min = r.int(0, 2);
  const max = min + r.int(4, 10);
  return {
    id,
    slug,
    name,
    link: `https://catalogue.example.org/fairs/${slug}/`,
    logo: `https://media.example.com/fairs/${slug}.png`,
    has_catalog: r.chance(0.7),
    events: r.some(eventIds, r.int(1, 6)),
    url: `${r.pick(['https', 'http'])}://maps.example.net/fairs/${slug}/`,
    tiles: {
      tile_pattern: r.pick(TILE_PATTERNS),
      tile_extension: r.pick(['png', 'png', 'jpg', 'webp']),
      tile_size: r.pick([256, 256, 512]),
    },
    size: { width: 2 ** r.int(12, 16), height: 2 ** r.int(12, 16) },
    zoom: {
      min,
      max,
      default: r.int(min, max),
      booth_zoom_level: r.int(min, max),
      reverse: r.chance(0.1),
      booth_section_start: r.int(min, max),
      booth_detail_start: r.int(min, max),
      translation_factor_7: r.pick(FACTORS),
      xs_width_max: r.chance(0.4) ? null : r.int(20, 80),
    },
    show: r.chance(0.8),
  };
}

// biome-ignore format: a list reads best packed
const MATERIALS = ['Oak Parquet', 'Beech Plywood', 'Béton Brut', 'Łupek Grafitowy', 'Marble Nero Marquina', 'Carpet',
  'Needle Felt', 'Brushed Aluminium', 'Corten Steel', 'Räuchereiche', 'Terrazzo Veneziano', 'Mármol Crema',
  'Acrylic Opal', 'Glass Frosted', 'Diamond Plate', 'Felt Wall Panel', 'Honeycomb Panel', 'Leatherette', 'Mesh Fabric',
  'Cork', 'Bamboo Strips', 'Brick', '3D Wave Panel', 'Epoxy Floor', 'Canvas', 'Copper Patina', 'Galvanised Sheet',
  'LED Wall (static)', 'Grass Turf', 'Ziegel & Putz'];
// biome-ignore format: a list reads best packed
const VARIANTS = ['', 'Natur', 'Anthracite', 'Moss Green', 'Royal Blue', 'Sand', 'Signal Red', 'Weiß', 'Grafit',
  'Blanc Cassé', 'Matt', 'High Gloss', 'Cognac', '#2', '#3'];
const LIBRARIES = ['floors', 'walls', 'metals', 'fabrics', 'woods', 'stone', 'glass-acrylic', 'specials'];

function texture(r: Rng, categories: readonly string[]): Json {
  const id = r.uuid();
  const name = `${r.pick(MATERIALS)} ${r.pick(VARIANTS)}`.trim();
  const ext = r.pick(['jpg', 'jpg', 'jpg', 'png', 'png', 'jpeg', 'JPG']);
  return {
    id,
    name,
    texture: `https://media.example.com/textures/${slugify(name)}-${id.slice(0, 8)}.${ext}`,
    categories: r.some(categories, r.next() < 0.7 ? 1 : r.int(2, 3)),
  };
}

const FAIR_PREFIXES = ['Virtual', 'Virtuelle', 'Wirtualne', 'Virtuale', 'Online', 'Digital'];

/**
 * Writes the catalogue into `dataDir` (emptied first) and describes what was written; other
 * `counts` give a smaller or larger catalogue of the same kind.
 */
export function generate(dataDir: string, counts: Counts = COUNTS): Generated {
  rmSync(dataDir, { recursive: true, force: true });
  const r = prng(SEED);
  const files: string[] = [];
  const hash = createHash('sha256');
  let bytes = 0;
  const write = (relative: string, value: Json) => {
    const file = path.join(dataDir, relative);
    const text = `${prettyWithFloats(value)}\n`;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    hash.update(`${relative}\0${text}\0`);
    bytes += Buffer.byteLength(text);
    files.push(file);
  };

  const companyIds = ids(r, counts.companies, 9);
  for (let i = 0; i < companyIds.length; i += COMPANIES_PER_FILE) {
    const chunk = companyIds.slice(i, i + COMPANIES_PER_FILE).map((id) => company(r, id));
    write(`company/companies-${String(i / COMPANIES_PER_FILE + 1).padStart(3, '0')}.json`, chunk);
  }

  const allEvents = events(r, counts.events) as Array<{ id: number; start_date: string; logo: string | null }>;
  const byYear = new Map<string, typeof allEvents>();
  for (const event of [...allEvents].sort((a, b) =>
    a.start_date < b.start_date ? -1 : a.start_date > b.start_date ? 1 : a.id - b.id,
  )) {
    const year = event.start_date.slice(0, 4);
    const list = byYear.get(year);
    if (list) list.push(event);
    else byYear.set(year, [event]);
  }
  for (const [year, list] of byYear) write(`event/${year}.json`, list as unknown as Json);

  // Fairs show each event's logo, so only events that have one may be listed.
  const withLogo = allEvents.filter((e) => e.logo !== null).map((e) => e.id);
  const fairSlugs = new Set<string>();
  for (const id of ids(r, counts.fairs, 4)) {
    const name = `${r.pick(FAIR_PREFIXES)} ${r.pick(EVENT_SERIES)}${r.chance(0.3) ? ` ${r.int(2, 40)}` : ''}`;
    let slug = slugify(name) || `fair-${id}`;
    if (fairSlugs.has(slug)) slug = `${slug}-${id}`;
    fairSlugs.add(slug);
    write(`virtualfair/${slug}.json`, fair(r, id, name, slug, withLogo));
  }

  const categories = Array.from({ length: 30 }, () => r.uuid());
  const textures = Array.from({ length: counts.textures }, () => texture(r, categories));
  for (let i = 0; i < textures.length; i += TEXTURES_PER_FILE) {
    const n = i / TEXTURES_PER_FILE;
    const library = LIBRARIES[n % LIBRARIES.length] as string;
    write(
      `virtualbooth-texture/${library}/textures-${String(n + 1).padStart(3, '0')}.json`,
      textures.slice(i, i + TEXTURES_PER_FILE),
    );
  }

  const records = counts.companies + counts.events + counts.fairs + counts.textures;
  const layout = [
    `company/companies-NNN.json: ${Math.ceil(counts.companies / COMPANIES_PER_FILE)} arrays of ${COMPANIES_PER_FILE}`,
    `event/<year>.json: ${byYear.size} arrays, one per year of start_date`,
    `virtualfair/<slug>.json: ${counts.fairs} single records`,
    `virtualbooth-texture/<library>/textures-NNN.json: ${Math.ceil(counts.textures / TEXTURES_PER_FILE)} arrays of ${TEXTURES_PER_FILE} in ${LIBRARIES.length} folders`,
  ];
  return { files, bytes, records, digest: hash.digest('hex').slice(0, 16), layout };
}
