const U = process.env.U, K = process.env.K;
const h = { authorization: `Bearer ${K}`, 'content-type': 'application/json' };
const post = async (p, b) => { const r = await fetch(U + p, { method: 'POST', headers: { ...h, 'idempotency-key': crypto.randomUUID() }, body: JSON.stringify(b) }); return [r.status, await r.json()]; };
const imp = async (kind, file) => { const f = new FormData(); f.append('kind', kind); f.append('duplicateStrategy','fail'); f.append('file', new Blob([file]), 'x.csv'); const r = await fetch(U + '/v1/imports/jobs', { method: 'POST', headers: { authorization: h.authorization, 'idempotency-key': crypto.randomUUID() }, body: f }); console.log('import', r.status, (await r.text()).slice(0,200)); };
await imp('items', 'sku,name\nX,X\nY,Y\n'); await imp('locations', 'code,name\nA,A\n');
await new Promise(r => setTimeout(r, 3000));
console.log(await post('/v1/stock/receipts', { poNumber: 'P1', lines: [{ sku: 'X', locationCode: 'A', quantity: 5 }] }));
const items = await (await fetch(U + '/v1/items', { headers: h })).json();
const id = (s) => items.data.find((i) => i.sku === s).id;
console.log(await post('/v1/boms', { code: 'B1', name: 'b', targetItemId: id('Y'), components: [{ itemId: id('X'), quantity: 1 }] }));
const [st, b] = await post('/v1/builds', { buildReference: 'BR1', bomCode: 'B1', quantity: 2, locationCode: 'A' }); console.log(st, b);
for (let i = 0; i < 20; i++) { await new Promise(r => setTimeout(r, 500)); const g = await (await fetch(U + '/v1/builds/' + b.id, { headers: h })).json(); if (g.status !== 'queued') { console.log(g); break; } }
