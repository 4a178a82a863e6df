export default function Usage() {
  return <h1>Usage</h1>;
}
