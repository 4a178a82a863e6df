import type { DaySpend } from '../usage';
import { axisTicks } from '../usage';

/** Room for the y-axis's labels (left) and the days (below), in the drawing's units. */
const WIDTH = 600;
const HEIGHT = 180;
const LEFT = 44;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 20;

/** Spend per day as SVG bars with a credits axis: a few lines instead of a chart library in the bundle. */
export function SpendChart({ days, span }: { days: readonly DaySpend[]; span?: string }) {
  const over = span ?? `the last ${days.length} days`;
  const busiest = Math.max(0, ...days.map((day) => day.credits));
  const ticks = axisTicks(busiest);
  const top = ticks.at(-1)!;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const y = (credits: number) => TOP + plotHeight - (plotHeight * credits) / top;
  const slot = (WIDTH - LEFT - RIGHT) / Math.max(1, days.length);
  const total = days.reduce((sum, day) => sum + day.credits, 0);
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`Credits spent per day over ${over}: ${total} in all`}>
        <g data-axis="y">
          {ticks.map((tick) => (
            <g key={tick}>
              <line className="grid" x1={LEFT} x2={WIDTH - RIGHT} y1={y(tick)} y2={y(tick)} />
              <text x={LEFT - 6} y={y(tick) + 3} textAnchor="end">
                {tick.toLocaleString('en-US')}
              </text>
            </g>
          ))}
          <line className="axis" x1={LEFT} x2={LEFT} y1={TOP} y2={TOP + plotHeight} />
        </g>
        {days.map((day, index) => (
          <rect key={day.day} className="bar" x={LEFT + index * slot + 2} y={y(day.credits)} width={Math.max(1, slot - 4)} height={TOP + plotHeight - y(day.credits)}>
            <title>{`${day.day}: ${day.credits} credits`}</title>
          </rect>
        ))}
        <g data-axis="x">
          {days.map((day, index) =>
            index % 5 === 0 ? (
              <text key={day.day} x={LEFT + index * slot + slot / 2} y={HEIGHT - 5} textAnchor="middle">
                {day.day.slice(5)}
              </text>
            ) : null,
          )}
        </g>
        <line className="axis" x1={LEFT} x2={WIDTH - RIGHT} y1={TOP + plotHeight} y2={TOP + plotHeight} />
      </svg>
      <figcaption className="muted small">
        Credits per day (UTC, month-day below the bars). {total} credits spent over {over} (charges less refunds; the busiest day {busiest}).
      </figcaption>
    </figure>
  );
}
