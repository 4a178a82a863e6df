import type { DaySpend } from '../usage';

/** Spend per day as SVG bars: a few lines instead of a chart library in the bundle. */
export function SpendChart({ days }: { days: readonly DaySpend[] }) {
  const width = 600;
  const height = 160;
  const bottom = 18;
  const max = Math.max(1, ...days.map((day) => day.credits));
  const slot = width / Math.max(1, days.length);
  const total = days.reduce((sum, day) => sum + day.credits, 0);
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`Credits spent per day over the last ${days.length} days: ${total} in all`}>
        {days.map((day, index) => {
          const barHeight = ((height - bottom - 4) * day.credits) / max;
          return (
            <g key={day.day}>
              <title>{`${day.day}: ${day.credits} credits`}</title>
              <rect className="bar" x={index * slot + 2} y={height - bottom - barHeight} width={Math.max(1, slot - 4)} height={barHeight} />
              {index % 5 === 0 && (
                <text x={index * slot + slot / 2} y={height - 4} textAnchor="middle">
                  {day.day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
        <line x1="0" x2={width} y1={height - bottom} y2={height - bottom} stroke="#d9dee4" />
      </svg>
      <figcaption className="muted small">
        {total} credits spent in the last {days.length} days (charges less refunds; the busiest day {max === 1 && total === 0 ? 0 : max}).
      </figcaption>
    </figure>
  );
}
