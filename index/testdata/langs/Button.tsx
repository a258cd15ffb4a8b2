import React from 'react';

interface ButtonProps {
  label: string;
  onClick: () => void;
}

/** Button renders a clickable label. */
export function Button({ label, onClick }: ButtonProps) {
  return <button onClick={onClick}>{label}</button>;
}

export const IconButton = ({ label, onClick }: ButtonProps) => (
  <button className="icon" onClick={onClick}>
    {label}
  </button>
);
