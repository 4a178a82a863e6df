export default function Generations() {
  return <h1>Generations</h1>;
}
