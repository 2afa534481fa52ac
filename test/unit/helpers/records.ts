// A valid company, event and virtual fair as the data folder holds them, so that the tests that
// need one build their variant from it (`{ ...validFair(), events: [5] }`) instead of each writing
// the whole record out again. Each call gives a fresh object, which a test may change. A test that
// depends on a value (an id it names, a URL's scheme) gives that value itself, in its override.

export function validCompany() {
  return {
    id: 1,
    name: 'Acme GmbH',
    street: '',
    zip_code: '-',
    city: '',
    country_name: 'Germany',
    phone: null,
    fax: null,
    e_mail: '',
    platform_plus_status: false,
    website: '',
    logo: null,
    tags: null,
    vf_plus_status: true,
  };
}

export function validEvent() {
  return {
    id: 5,
    name: 'Expo',
    slug: 'expo-2024',
    short_code: null,
    start_date: '2024-05-02',
    end_date: '2024-05-02',
    logo: '/media/events/expo.png',
    logo_bg_color: null,
  };
}

/** A fair showing event 5 (validEvent()). */
export function validFair() {
  return {
    id: 3,
    slug: 'virtual-expo',
    name: 'Virtual Expo',
    link: 'https://catalogue.example.org/fairs/virtual-expo/',
    logo: 'https://media.example.com/fairs/virtual-expo.png',
    has_catalog: true,
    events: [5],
    url: 'https://maps.example.net/fairs/virtual-expo/',
    tiles: { tile_pattern: '{z}/{x}/{y}', tile_extension: 'png', tile_size: 256 },
    size: { width: 16384, height: 8192 },
    zoom: {
      min: 0,
      max: 6,
      default: 2,
      booth_zoom_level: 4,
      reverse: false,
      booth_section_start: 4,
      booth_detail_start: 5,
      translation_factor_7: 2,
      xs_width_max: 40,
    },
    show: true,
  };
}
