/**
 * Reads the facts of an MP4 (ISO BMFF) file that the tests check: its boxes, duration, frame
 * size, codec and frame count. Enough of the format for our own files, nothing more.
 */

/** Top-level or nested ISO BMFF boxes: [type, payload start, end]. */
export interface Box {
  type: string;
  start: number;
  end: number;
}

export function readBoxes(data: Buffer, start = 0, end = data.length): Box[] {
  const boxes: Box[] = [];
  let offset = start;
  while (offset + 8 <= end) {
    let size = data.readUInt32BE(offset);
    const type = data.toString('latin1', offset + 4, offset + 8);
    let header = 8;
    if (size === 1) {
      size = Number(data.readBigUInt64BE(offset + 8));
      header = 16;
    } else if (size === 0) {
      size = end - offset;
    }
    if (size < header || offset + size > end) throw new Error(`Malformed box ${type} at ${offset}`);
    boxes.push({ type, start: offset + header, end: offset + size });
    offset += size;
  }
  return boxes;
}

/** Follows a path of box types, e.g. ['moov', 'trak', 'tkhd']. */
export function findBox(data: Buffer, path: string[], within?: Box): Box {
  let box = within;
  for (const type of path) {
    const found = readBoxes(data, box?.start, box?.end).find((b) => b.type === type);
    if (!found) throw new Error(`No ${type} box in ${path.join('/')}`);
    box = found;
  }
  return box as Box;
}

export interface Mp4Facts {
  topLevel: string[];
  durationSeconds: number;
  width: number;
  height: number;
  sampleEntry: string;
  sampleCount: number;
}

export function inspectMp4(data: Buffer): Mp4Facts {
  const mvhd = findBox(data, ['moov', 'mvhd']);
  const v1 = data[mvhd.start] === 1;
  const timescale = data.readUInt32BE(mvhd.start + (v1 ? 20 : 12));
  const duration = v1 ? Number(data.readBigUInt64BE(mvhd.start + 24)) : data.readUInt32BE(mvhd.start + 16);

  const trak = findBox(data, ['moov', 'trak']);
  const tkhd = findBox(data, ['tkhd'], trak);
  const sizeAt = tkhd.start + (data[tkhd.start] === 1 ? 88 : 76);

  const stbl = findBox(data, ['mdia', 'minf', 'stbl'], trak);
  const stsd = findBox(data, ['stsd'], stbl);
  // stsd is a full box: version and flags, then an entry count, then the sample entries.
  const [entry] = readBoxes(data, stsd.start + 8, stsd.end);
  const stsz = findBox(data, ['stsz'], stbl);

  return {
    topLevel: readBoxes(data).map((b) => b.type),
    durationSeconds: duration / timescale,
    width: data.readUInt32BE(sizeAt) / 65536,
    height: data.readUInt32BE(sizeAt + 4) / 65536,
    sampleEntry: entry?.type ?? '',
    sampleCount: data.readUInt32BE(stsz.start + 8),
  };
}
