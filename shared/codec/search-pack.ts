import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { docOrder, docReader, docWriter, Reader, Writer, type SourceMessage } from './search-segment.ts';

// A pack: tail messages older than the seal lag that are not yet a segment, kept together in one item
// (the `q` index's level 0). Each message is its doc (created_at and message id delta-coded, conversation,
// inbox; segment.ts) and its content, the whole run deflated: about a third of what the same messages
// cost as tail items (~45 bytes of keys and names each besides the text), so a search that scans them
// reads a fraction of the bytes. Read whole and scanned like the tail; a segment is built from the packs
// once they hold SEAL_MIN messages.

/** Most bytes of a pack's data: its item stays within one 4 KB read unit with its keys. */
export const PACK_BYTES = 3_900;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** One pack's bytes: the messages in `docOrder`, deflated. */
export function encodePack(messages: SourceMessage[]): Uint8Array {
  const w = new Writer();
  const write = docWriter(w);
  for (const m of [...messages].sort(docOrder)) {
    write(m);
    w.bytes(utf8.encode(m.content));
  }
  return new Uint8Array(deflateRawSync(w.done()));
}

export function decodePack(data: Uint8Array): SourceMessage[] {
  const r = new Reader(new Uint8Array(inflateRawSync(data)));
  const read = docReader(r);
  const out: SourceMessage[] = [];
  while (r.more) out.push({ ...read(), content: fromUtf8.decode(r.bytes()) });
  return out;
}

/**
 * The messages as packs of at most PACK_BYTES each, in `docOrder`: runs cut by raw size, a run that
 * still deflates to more is halved (a single message longer than a pack holds is a pack of its own).
 */
export function packsOf(messages: SourceMessage[]): { data: Uint8Array; messages: SourceMessage[] }[] {
  const sorted = [...messages].sort(docOrder);
  const out: { data: Uint8Array; messages: SourceMessage[] }[] = [];
  const emit = (run: SourceMessage[]) => {
    const data = encodePack(run);
    if (data.length <= PACK_BYTES || run.length === 1) out.push({ data, messages: run });
    else {
      emit(run.slice(0, run.length >> 1));
      emit(run.slice(run.length >> 1));
    }
  };
  let run: SourceMessage[] = [];
  let raw = 0;
  for (const m of sorted) {
    const size = 12 + utf8.encode(m.content).length;
    if (run.length && raw + size > 2 * PACK_BYTES) {
      emit(run);
      run = [];
      raw = 0;
    }
    run.push(m);
    raw += size;
  }
  if (run.length) emit(run);
  return out;
}
