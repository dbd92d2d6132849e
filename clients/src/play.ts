// One whole game through the types generated from api_spec/openapi.json (openapi-typescript)
// and openapi-fetch: create a table, take every seat, then let the seat to act send one of
// its legal actions until the table is finished. Usage: node dist/src/play.js URL GAME SEATS
import createClient from "openapi-fetch";
import type { paths } from "../generated/schema.js";

type View = paths["/tables/{table_id}"]["get"]["responses"][200]["content"]["application/json"];
type LegalAction = View["legal_actions"][number];
type CreateTable = NonNullable<
  paths["/tables"]["post"]["requestBody"]
>["content"]["application/json"];
type Command = NonNullable<
  paths["/tables/{table_id}/actions"]["post"]["requestBody"]
>["content"]["application/json"];

const [url = "http://127.0.0.1:8000", game = "pitch", seats = "4"] = process.argv.slice(2);
const api = createClient<paths>({ baseUrl: url });

function some<T>(items: readonly T[]): T {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error("nothing to choose from");
  return item;
}

/** Any `min`..`max` of the offered items. */
function pick<T>(choice: { from: T[]; min: number; max: number }): T[] {
  const count = choice.min + Math.floor(Math.random() * (choice.max - choice.min + 1));
  return [...choice.from].sort(() => Math.random() - 0.5).slice(0, count);
}

/** A legal action ready to send: where it offers a choice of cards (or melds), pick some. */
function command(action: LegalAction): Command {
  switch (action.type) {
    case "exchange":
      return { type: "exchange", discard: pick(action.discard) };
    case "bury":
      return { type: "bury", cards: pick(action.cards) };
    case "reserve":
      return { type: "reserve", cards: pick(action.cards) };
    case "meld":
      return { type: "meld", melds: Array.isArray(action.melds) ? action.melds : pick(action.melds) };
    default:
      return action;
  }
}

/** Random, but passing half the time and bidding low, so that random auctions end. */
function choose(actions: LegalAction[]): LegalAction {
  const pass = actions.find((a) => a.type === "pass");
  if (pass && actions.length > 1 && Math.random() < 0.5) return pass;
  const bids = actions.flatMap((a) => (a.type === "bid" ? [a] : []));
  bids.sort((a, b) => a.amount - b.amount);
  if (bids[0] && Math.random() < 0.7) return bids[0];
  return some(actions);
}

function fail(what: string, error: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(error)}`);
}

async function main(): Promise<void> {
  // The server refuses an unknown game id with a problem document.
  const body = { game: game as CreateTable["game"], seats: Number(seats) };
  // A retry with the same key would get the same table, not open a second one.
  const created = await api.POST("/tables", {
    params: { header: { "Idempotency-Key": crypto.randomUUID() } },
    body,
  });
  if (!created.data) fail("createTable", created.error);
  const table_id = created.data.id;
  const tokens: string[] = [];
  for (let seat = 0; seat < Number(seats); seat++) {
    const { data, error } = await api.POST("/tables/{table_id}/seats/{seat}", {
      // The same key on a retry would get the same token back, not seat-taken.
      params: { path: { table_id, seat }, header: { "Idempotency-Key": crypto.randomUUID() } },
      body: { name: `ts ${seat}` },
    });
    if (!data) fail("takeSeat", error);
    // A player's seat always has a token; only the computer's is null.
    if (data.token === null) fail("takeSeat", data);
    tokens.push(data.token);
  }
  const spectator = await api.GET("/tables/{table_id}", { params: { path: { table_id } } });
  if (!spectator.data) fail("getTable", spectator.error);
  let view: View = spectator.data;
  while (view.status !== "finished") {
    const seat = some(view.to_act);
    const headers = { Authorization: `Bearer ${tokens[seat]}` };
    const mine = await api.GET("/tables/{table_id}", { params: { path: { table_id } }, headers });
    if (!mine.data) fail("getTable", mine.error);
    const etag = mine.response.headers.get("ETag") ?? "*";
    const acted = await api.POST("/tables/{table_id}/actions", {
      params: {
        path: { table_id },
        header: { "If-Match": etag, "Idempotency-Key": crypto.randomUUID() },
      },
      headers,
      body: command(choose(mine.data.legal_actions)),
    });
    if (!acted.data) fail("postAction", acted.error);
    view = acted.data.table;
  }
  const { id, version, scores, winners } = view;
  console.log(JSON.stringify({ id, game: view.game, version, scores, winners }));
}

await main();
