import type { EventDataOf, EventOf, EventType } from './events.ts';

/** One example per event type, published in events-schema/examples/ (lib/events/contracts/schema-files.ts). */

const ORGANIZATION = 'org_acme';
const ITEM_ID = 'itm_01KH3AQWT0ZCB6Z8FRSJRCD9CS';
const LOCATION_ID = 'loc_01KF078DC02V2SXEHM79QT7VQ9';
const STOCK_RECORD_ID = 'stk_01KH8MP4807D4A2FX90YJXQ7VB';
const SKU = 'OIL-HV46';
const LOT = 'HV46-2603';

const exampleItem: EventDataOf<'item.created'>['item'] = {
  id: ITEM_ID,
  sku: SKU,
  name: 'Hydraulic oil HV 46',
  unit: 'l',
  description: null,
  category: 'Lubricants',
  barcode: '4006381333931',
  reorderPoint: 150,
  trackingMode: 'lot',
  createdAt: '2026-02-10T08:30:00.000Z',
  updatedAt: '2026-02-10T08:30:00.000Z',
};

export const EVENT_EXAMPLES: { readonly [T in EventType]: EventOf<T> } = {
  'stock.changed': {
    id: 'evt_00000001110212F2JFYJKD6FXN',
    type: 'stock.changed',
    version: 1,
    occurredAt: '2026-03-03T11:02:44.118Z',
    organizationId: ORGANIZATION,
    data: {
      stockRecordId: STOCK_RECORD_ID,
      itemId: ITEM_ID,
      sku: SKU,
      locationId: LOCATION_ID,
      locationCode: 'WH1-A-01',
      lot: LOT,
      previousQuantity: 400,
      previousUpdatedAt: '2026-03-02T16:40:12.004Z',
      quantity: 380,
      delta: -20,
      previousReserved: 50,
      reserved: 50,
      previousAvailable: 350,
      available: 330,
      movementId: 'mov_01KJSNTN10C22JDJ1QJMZVHAA0',
      reservationId: null,
      reason: 'Damaged container',
    },
  },
  'item.created': {
    id: 'evt_000000009RADPCB6PPSEGFYV43',
    type: 'item.created',
    version: 1,
    occurredAt: '2026-02-10T08:30:00.000Z',
    organizationId: ORGANIZATION,
    data: { item: exampleItem },
  },
  'item.updated': {
    id: 'evt_000000010ESRY7YWD0ZW5B0775',
    type: 'item.updated',
    version: 1,
    occurredAt: '2026-02-27T14:05:12.481Z',
    organizationId: ORGANIZATION,
    data: {
      item: { ...exampleItem, description: 'ISO VG 46 hydraulic oil, bulk', reorderPoint: 200, updatedAt: '2026-02-27T14:05:12.481Z' },
      changedFields: ['description', 'reorderPoint'],
      previous: { description: null, reorderPoint: 150 },
    },
  },
  'movement.created': {
    id: 'evt_000000010JA4WNP248F8EGS5W1',
    type: 'movement.created',
    version: 1,
    occurredAt: '2026-03-02T09:14:05.000Z',
    organizationId: ORGANIZATION,
    data: {
      movement: {
        id: 'mov_01KJPX6ZT8MKYT6YPE0ZSHBVX3',
        type: 'receipt',
        itemId: ITEM_ID,
        sku: SKU,
        fromLocationId: null,
        toLocationId: LOCATION_ID,
        quantity: 400,
        lot: LOT,
        reference: 'PO-2026-0042',
      },
    },
  },
  'po.received': {
    id: 'evt_000000010H77BWTBB5F3Q31VNQ',
    type: 'po.received',
    version: 1,
    occurredAt: '2026-03-02T09:14:05.000Z',
    organizationId: ORGANIZATION,
    data: {
      poNumber: 'PO-2026-0042',
      receiptId: 'rcp_01KJPX6ZT81W7RP5ZGTT6ECKBN',
      lines: [{ itemId: ITEM_ID, sku: SKU, locationId: LOCATION_ID, quantity: 400, lot: LOT, stockRecordId: STOCK_RECORD_ID }],
    },
  },
  'count.completed': {
    id: 'evt_0000000153F8B6EB7J6CEV3RQJ',
    type: 'count.completed',
    version: 1,
    occurredAt: '2026-03-03T16:40:00.000Z',
    organizationId: ORGANIZATION,
    data: {
      countId: 'cnt_01KJT946R0E7052YVB0E51YF3D',
      countReference: 'CNT-2026-03-A',
      locationId: LOCATION_ID,
      lines: [
        { itemId: ITEM_ID, sku: SKU, lot: LOT, expected: 380, counted: 374.75, delta: -5.25 },
        { itemId: ITEM_ID, sku: SKU, lot: 'HV46-2511', expected: 12.5, counted: 12.5, delta: 0 },
      ],
    },
  },
  'low-stock': {
    id: 'evt_000000015TBHMHZXZMWYECQYZX',
    type: 'low-stock',
    version: 1,
    occurredAt: '2026-03-05T07:12:30.902Z',
    organizationId: ORGANIZATION,
    data: { itemId: ITEM_ID, sku: SKU, onHand: 237.75, reserved: 50, available: 187.75, reorderPoint: 200 },
  },
  'export.completed': {
    id: 'evt_000000015M37BCCEVJ6C8QA5ER',
    type: 'export.completed',
    version: 1,
    occurredAt: '2026-03-04T06:00:07.000Z',
    organizationId: ORGANIZATION,
    data: {
      exportId: 'exp_01KJVPX1R0PQ2GPX0Z4BY79MZE',
      kind: 'stock-records',
      rowCount: 1342,
      downloadUrl: '/v1/exports/exp_01KJVPX1R0PQ2GPX0Z4BY79MZE/download-url',
      expiresAt: '2026-03-11T06:00:07.000Z',
    },
  },
};
