export default function Keys() {
  return <h1>Keys</h1>;
}
