export default function Playground() {
  return <h1>Playground</h1>;
}
